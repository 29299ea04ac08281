//! `CompressionFormat`: how an object's bytes are written, and the extension its name gets
//! when the destination sets no `FileExtension`.
//!
//! `GZIP` is one gzip member; `ZIP` an archive of one deflated entry; `Snappy` the Snappy
//! framing format; `HADOOP_SNAPPY` Hadoop's block format (per block of up to 256 KiB: its
//! length, then one compressed chunk with its length, each a big-endian `u32`), which Hadoop's
//! `SnappyCodec` reads.

use std::io::Write;

/// A destination's `CompressionFormat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    Uncompressed,
    Gzip,
    Zip,
    Snappy,
    HadoopSnappy,
}

/// Hadoop's default block size for Snappy streams.
const HADOOP_BLOCK: usize = 256 * 1024;

impl Compression {
    /// The format the model's value names; an unknown value is left uncompressed.
    pub(crate) fn named(value: Option<&str>) -> Compression {
        match value {
            Some("GZIP") => Compression::Gzip,
            Some("ZIP") => Compression::Zip,
            Some("Snappy") => Compression::Snappy,
            Some("HADOOP_SNAPPY") => Compression::HadoopSnappy,
            _ => Compression::Uncompressed,
        }
    }

    /// The extension an object name ends with by default.
    pub(crate) fn extension(self) -> &'static str {
        match self {
            Compression::Uncompressed => "",
            Compression::Gzip => ".gz",
            Compression::Zip => ".zip",
            Compression::Snappy | Compression::HadoopSnappy => ".snappy",
        }
    }

    /// `data` compressed; `entry` names the file inside a ZIP archive.
    pub(crate) fn compress(self, data: &[u8], entry: &str) -> Vec<u8> {
        match self {
            Compression::Uncompressed => data.to_vec(),
            Compression::Gzip => {
                let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                // Writing to a Vec cannot fail.
                let _ = encoder.write_all(data);
                encoder.finish().unwrap_or_default()
            }
            Compression::Zip => zip(data, entry),
            Compression::Snappy => {
                let mut encoder = snap::write::FrameEncoder::new(Vec::new());
                let _ = encoder.write_all(data);
                encoder.into_inner().unwrap_or_default()
            }
            Compression::HadoopSnappy => {
                let mut out = Vec::new();
                let mut encoder = snap::raw::Encoder::new();
                for block in data.chunks(HADOOP_BLOCK) {
                    let compressed = encoder.compress_vec(block).unwrap_or_default();
                    out.extend_from_slice(&(block.len() as u32).to_be_bytes());
                    out.extend_from_slice(&(compressed.len() as u32).to_be_bytes());
                    out.extend_from_slice(&compressed);
                }
                out
            }
        }
    }
}

/// A ZIP archive holding `data` as one deflated file named `name` (APPNOTE 6.3: a local
/// header, the data, one central directory entry and its end record; no ZIP64, so objects
/// stay under 4 GiB, which buffering hints keep them far below).
fn zip(data: &[u8], name: &str) -> Vec<u8> {
    let mut deflater = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = deflater.write_all(data);
    let deflated = deflater.finish().unwrap_or_default();
    let mut crc = flate2::Crc::new();
    crc.update(data);
    let (crc, size, packed) = (crc.sum(), data.len() as u32, deflated.len() as u32);
    let name = name.as_bytes();
    let name_len = name.len() as u16;
    // Version 2.0, no flags, deflate, the DOS epoch (1980-01-01 00:00).
    let common = |out: &mut Vec<u8>| {
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&8u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0x21u16.to_le_bytes());
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&packed.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
    };
    let mut out = Vec::with_capacity(deflated.len() + 2 * name.len() + 98);
    out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    common(&mut out);
    out.extend_from_slice(name);
    out.extend_from_slice(&deflated);
    let directory_at = out.len() as u32;
    out.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    out.extend_from_slice(&20u16.to_le_bytes());
    common(&mut out);
    // Comment length, disk number, internal and external attributes, local header offset.
    out.extend_from_slice(&[0; 2 + 2 + 2 + 4]);
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(name);
    let directory_len = out.len() as u32 - directory_at;
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&directory_len.to_le_bytes());
    out.extend_from_slice(&directory_at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    fn sample() -> Vec<u8> {
        (0..600_000u32)
            .flat_map(|i| format!("record {}\n", i % 977).into_bytes())
            .collect()
    }

    #[test]
    fn each_format_reads_back_with_its_own_decoder() {
        let data = sample();
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(&Compression::Gzip.compress(&data, "x")[..])
            .read_to_end(&mut text)
            .unwrap();
        assert_eq!(text, data);
        let mut framed = Vec::new();
        snap::read::FrameDecoder::new(&Compression::Snappy.compress(&data, "x")[..])
            .read_to_end(&mut framed)
            .unwrap();
        assert_eq!(framed, data);
        assert_eq!(Compression::Uncompressed.compress(&data, "x"), data);
    }

    #[test]
    fn hadoop_snappy_is_length_prefixed_blocks_of_raw_snappy() {
        let data = sample();
        let packed = Compression::HadoopSnappy.compress(&data, "x");
        let mut at = 0;
        let mut out = Vec::new();
        while at < packed.len() {
            let block = u32::from_be_bytes(packed[at..at + 4].try_into().unwrap()) as usize;
            let chunk = u32::from_be_bytes(packed[at + 4..at + 8].try_into().unwrap()) as usize;
            let raw = snap::raw::Decoder::new()
                .decompress_vec(&packed[at + 8..at + 8 + chunk])
                .unwrap();
            assert_eq!(raw.len(), block);
            assert!(block <= HADOOP_BLOCK);
            out.extend(raw);
            at += 8 + chunk;
        }
        assert_eq!(out, data);
    }

    #[test]
    fn a_zip_archive_holds_one_deflated_entry_under_its_name() {
        let data = sample();
        let archive = Compression::Zip.compress(&data, "stream-1-2024-01-01-00-00-00-id");
        // The local header: signature, then the method (deflate) at offset 8, the name at 30.
        assert_eq!(&archive[..4], b"PK\x03\x04");
        assert_eq!(u16::from_le_bytes([archive[8], archive[9]]), 8);
        let name_len = u16::from_le_bytes([archive[26], archive[27]]) as usize;
        assert_eq!(&archive[30..30 + name_len], b"stream-1-2024-01-01-00-00-00-id");
        let packed = u32::from_le_bytes(archive[18..22].try_into().unwrap()) as usize;
        let body = &archive[30 + name_len..30 + name_len + packed];
        let mut inflated = Vec::new();
        flate2::read::DeflateDecoder::new(body)
            .read_to_end(&mut inflated)
            .unwrap();
        assert_eq!(inflated, data);
        let end = archive.len() - 22;
        assert_eq!(&archive[end..end + 4], b"PK\x05\x06");
        let directory_at = u32::from_le_bytes(archive[end + 16..end + 20].try_into().unwrap()) as usize;
        assert_eq!(&archive[directory_at..directory_at + 4], b"PK\x01\x02");
    }

    #[test]
    fn extensions_follow_the_format() {
        assert_eq!(Compression::named(Some("GZIP")).extension(), ".gz");
        assert_eq!(Compression::named(Some("UNCOMPRESSED")).extension(), "");
        assert_eq!(Compression::named(None), Compression::Uncompressed);
        assert_eq!(Compression::named(Some("HADOOP_SNAPPY")).extension(), ".snappy");
    }
}
