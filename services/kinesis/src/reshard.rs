//! Resharding a stream's record: new streams' shards, SplitShard, MergeShards and
//! UpdateShardCount. A closed parent keeps its records and gets its `EndingSequenceNumber`;
//! its children name it as `ParentShardId` (and, for a merge, `AdjacentParentShardId`), and
//! start numbering after it, so reading parents before children reads a key's records in the
//! order they were put.
//!
//! UpdateShardCount reshapes the stream as AWS does, through splits and then merges (AWS's
//! API reference: "this operation ... might create temporary shards"), so every shard it
//! closes has at most two children and every child at most two parents.

use crate::error::{invalid_argument, Result};
use crate::hash_key::even_range;
use crate::store::{shard_id, ShardRecord, StreamRecord};

impl StreamRecord {
    /// A new stream's record with `count` shards dividing the hash key space evenly.
    pub(crate) fn new(name: &str, mode: &str, count: u32, now_ms: i64) -> StreamRecord {
        let mut stream = StreamRecord {
            name: name.to_owned(),
            created_ms: now_ms,
            mode: mode.to_owned(),
            retention_hours: 24,
            key_id: None,
            metrics: Default::default(),
            tags: Default::default(),
            policy: None,
            shards: Vec::new(),
            next_counter: 0,
        };
        for i in 0..count {
            let (start, end) = even_range(i, count);
            stream.open_shard(start, end, (None, None), now_ms);
        }
        stream
    }

    fn open_shard(&mut self, start: u128, end: u128, parents: (Option<u32>, Option<u32>), now_ms: i64) -> u32 {
        let index = u32::try_from(self.shards.len()).unwrap_or(u32::MAX);
        self.shards.push(ShardRecord {
            index,
            parent: parents.0,
            adjacent_parent: parents.1,
            start,
            end,
            first_counter: self.next_counter,
            last_counter: None,
            created_ms: now_ms,
            closed_ms: None,
        });
        self.next_counter += 1;
        index
    }

    fn close_shard(&mut self, index: u32, now_ms: i64) {
        let counter = self.next_counter;
        if let Some(shard) = self.shards.iter_mut().find(|s| s.index == index) {
            shard.last_counter = Some(counter);
            shard.closed_ms = Some(now_ms);
        }
        // No record gets the closed shard's ending number.
        self.next_counter += 1;
    }

    fn open(&self, account: &str, id: &str, index: Option<u32>) -> Result<&ShardRecord> {
        match index.and_then(|i| self.shard(i)) {
            Some(shard) if shard.is_open() => Ok(shard),
            Some(_) => Err(invalid_argument(format!(
                "Shard {id} in stream {} under account {account} has already been merged or split, and thus is not eligible for merging or splitting.",
                self.name
            ))),
            None => Err(crate::error::not_found(format!(
                "Could not find shard {id} in stream {} under account {account}.",
                self.name
            ))),
        }
    }

    /// Splits shard `index` so that a second child starts at `at`.
    pub(crate) fn split(&mut self, account: &str, id: &str, index: Option<u32>, at: u128, now_ms: i64) -> Result<()> {
        let shard = self.open(account, id, index)?;
        let (parent, start, end) = (shard.index, shard.start, shard.end);
        if at <= start || at > end {
            return Err(invalid_argument(format!(
                "NewStartingHashKey {at} used in SplitShard() on shard {id} in stream {} under account {account} is not both greater than one plus the shard's StartingHashKey {start} and less than the shard's EndingHashKey {end}.",
                self.name
            )));
        }
        self.close_shard(parent, now_ms);
        self.open_shard(start, at - 1, (Some(parent), None), now_ms);
        self.open_shard(at, end, (Some(parent), None), now_ms);
        Ok(())
    }

    /// Merges shard `a` with the adjacent shard `b` (whose range continues `a`'s, on either
    /// side) into one child naming `a` its parent and `b` its adjacent parent.
    pub(crate) fn merge(
        &mut self,
        account: &str,
        (a_id, a): (&str, Option<u32>),
        (b_id, b): (&str, Option<u32>),
        now_ms: i64,
    ) -> Result<()> {
        let first = self.open(account, a_id, a)?.clone();
        let second = self.open(account, b_id, b)?.clone();
        let adjacent = first.end.checked_add(1) == Some(second.start) || second.end.checked_add(1) == Some(first.start);
        if !adjacent {
            return Err(invalid_argument(format!(
                "Shards {a_id} and {b_id} in stream {} under account {account} are not an adjacent pair of shards eligible for merging",
                self.name
            )));
        }
        self.close_shard(first.index, now_ms);
        self.close_shard(second.index, now_ms);
        self.open_shard(
            first.start.min(second.start),
            first.end.max(second.end),
            (Some(first.index), Some(second.index)),
            now_ms,
        );
        Ok(())
    }

    /// Reshapes the open shards into `target` shards of even ranges: each open shard is split
    /// at every boundary of the new ranges it holds, then the pieces of each new range are
    /// merged, left to right.
    pub(crate) fn scale_to(&mut self, account: &str, target: u32, now_ms: i64) -> Result<()> {
        let boundaries: Vec<u128> = (1..target).map(|i| even_range(i, target).0).collect();
        for at in &boundaries {
            let holder = self
                .open_shards()
                .find(|s| s.start < *at && *at <= s.end)
                .map(|s| s.index);
            if let Some(index) = holder {
                self.split(account, &shard_id(index), Some(index), *at, now_ms)?;
            }
        }
        for i in 0..target {
            let (start, end) = even_range(i, target);
            loop {
                let mut pieces: Vec<(u128, u32)> = self
                    .open_shards()
                    .filter(|s| s.start >= start && s.end <= end)
                    .map(|s| (s.start, s.index))
                    .collect();
                if pieces.len() < 2 {
                    break;
                }
                pieces.sort_unstable();
                let (a, b) = (pieces[0].1, pieces[1].1);
                self.merge(account, (&shard_id(a), Some(a)), (&shard_id(b), Some(b)), now_ms)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use stratus_test_support::Rng;

    use super::*;

    fn tiles(stream: &StreamRecord) -> bool {
        let mut open: Vec<_> = stream.open_shards().map(|s| (s.start, s.end)).collect();
        open.sort_unstable();
        open.first().is_some_and(|s| s.0 == 0)
            && open.last().is_some_and(|s| s.1 == u128::MAX)
            && open.windows(2).all(|w| w[0].1 + 1 == w[1].0)
    }

    #[test]
    fn a_split_closes_the_parent_and_numbers_children_after_it() {
        let mut s = StreamRecord::new("s", "PROVISIONED", 1, 0);
        s.split("1", "shardId-000000000000", Some(0), 1 << 127, 5).unwrap();
        let parent = s.shard(0).unwrap();
        assert!(!parent.is_open());
        let children: Vec<_> = s.children_of(0).collect();
        assert_eq!(children.len(), 2);
        assert!(children.iter().all(|c| c.first_counter > parent.last_counter.unwrap()));
        assert_eq!((children[0].end, children[1].start), ((1 << 127) - 1, 1 << 127));
        assert!(tiles(&s));
        // A closed shard cannot be split again; a key outside the range is refused.
        assert!(s.split("1", "shardId-000000000000", Some(0), 1, 6).is_err());
        assert!(s.split("1", "shardId-000000000001", Some(1), 0, 6).is_err());
    }

    #[test]
    fn only_adjacent_shards_merge() {
        let mut s = StreamRecord::new("s", "PROVISIONED", 3, 0);
        assert!(s.merge("1", ("a", Some(0)), ("c", Some(2)), 1).is_err());
        s.merge("1", ("b", Some(1)), ("a", Some(0)), 1).unwrap();
        let child = s.shard(3).unwrap();
        assert_eq!((child.parent, child.adjacent_parent), (Some(1), Some(0)));
        assert_eq!((child.start, child.end), (0, s.shard(1).unwrap().end));
        assert!(tiles(&s));
    }

    #[test]
    fn scaling_reaches_any_count_within_half_and_double() {
        let mut rng = Rng(41);
        for _ in 0..200 {
            let from = 1 + rng.below(12) as u32;
            let lowest = from.div_ceil(2);
            let to = lowest + rng.below((2 * from - lowest + 1) as usize) as u32;
            let mut s = StreamRecord::new("s", "PROVISIONED", from, 0);
            s.scale_to("1", to, 1).unwrap();
            assert_eq!(s.open_shards().count(), to as usize, "{from} → {to}");
            assert!(tiles(&s), "{from} → {to}");
            let mut open: Vec<_> = s.open_shards().map(|s| (s.start, s.end)).collect();
            open.sort_unstable();
            for (i, range) in open.iter().enumerate() {
                assert_eq!(*range, even_range(i as u32, to));
            }
            for shard in &s.shards {
                assert!(s.children_of(shard.index).count() <= 2);
                if let Some(last) = shard.last_counter {
                    assert!(s.children_of(shard.index).all(|c| c.first_counter > last));
                }
            }
        }
    }
}
