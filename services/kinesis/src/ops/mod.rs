//! The operations, one function each, by topic; and what several topics show alike.

pub(crate) mod consumers;
pub(crate) mod encryption;
pub(crate) mod policies;
pub(crate) mod records;
pub(crate) mod shards;
pub(crate) mod streams;
pub(crate) mod tags;

use stratus_gen_kinesis::{EncryptionType, HashKeyRange, SequenceNumberRange, Shard, StreamMode, StreamModeDetails};

use crate::store::{shard_id, ShardRecord, StreamRecord};

/// A shard as DescribeStream and ListShards show it.
pub(crate) fn shard_view(s: &ShardRecord) -> Shard {
    Shard {
        shard_id: s.id(),
        parent_shard_id: s.parent.map(shard_id),
        adjacent_parent_shard_id: s.adjacent_parent.map(shard_id),
        hash_key_range: HashKeyRange {
            starting_hash_key: s.start.to_string(),
            ending_hash_key: s.end.to_string(),
        },
        sequence_number_range: SequenceNumberRange {
            starting_sequence_number: s.starting_sequence(),
            ending_sequence_number: s.ending_sequence(),
        },
    }
}

impl StreamRecord {
    pub(crate) fn mode_details(&self) -> StreamModeDetails {
        StreamModeDetails {
            stream_mode: StreamMode::from_wire(&self.mode),
        }
    }

    pub(crate) fn encryption(&self) -> EncryptionType {
        match self.key_id {
            Some(_) => EncryptionType::Kms,
            None => EncryptionType::None,
        }
    }

    /// The encryption type records show: left out while the stream is not encrypted, as AWS
    /// leaves it out of unencrypted streams' records.
    pub(crate) fn record_encryption(&self) -> Option<EncryptionType> {
        self.key_id.as_ref().map(|_| EncryptionType::Kms)
    }

    /// How many shards are open.
    pub(crate) fn open_shard_count(&self) -> i32 {
        i32::try_from(self.open_shards().count()).unwrap_or(i32::MAX)
    }
}
