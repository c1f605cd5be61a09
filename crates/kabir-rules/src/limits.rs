//! How much kabir reads whole into memory at most. Game files are read as a stream, in memory
//! bounded whatever their size (docs/RELIABILITY.md); the files read whole are small by nature,
//! and their limit, checked while reading, keeps `/dev/zero`, a pipe that never ends or a file
//! given by mistake from taking memory without bound. Every such file is read by
//! [`read_whole`].

use std::io::{self, Read};
use std::path::Path;

/// A bound on a file read whole: its size at most, and what such a file is, for the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The most bytes the file may hold.
    pub bytes: u64,
    /// What the file holds, as the error names it ("a variant definition").
    pub what: &'static str,
}

/// A variant definition file (`--variant-file`, [`load_file`](crate::variants::load_file)):
/// the built-in ones hold 1-5 KiB, so a file larger than this is not one.
pub const VARIANT_DEFINITION: Limit = Limit {
    bytes: 1 << 20,
    what: "a variant definition",
};

/// Reads the file at `path` whole; a file larger than `limit` is an error of kind
/// [`io::ErrorKind::FileTooLarge`] that says the limit, found on reading the byte past it.
///
/// ```
/// use kabir_rules::limits::{Limit, read_whole};
///
/// let tiny = Limit { bytes: 16, what: "a tiny file" };
/// let e = read_whole("/dev/zero".as_ref(), tiny).unwrap_err();
/// assert_eq!(e.to_string(), "a tiny file is at most 16 bytes; this file is larger");
/// ```
pub fn read_whole(path: &Path, limit: Limit) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit.bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "{} is at most {}; this file is larger",
                limit.what,
                size(limit.bytes)
            ),
        ));
    }
    Ok(bytes)
}

/// A size as people say it: whole MiB or KiB when it is one, else bytes.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_at_the_limit_reads_and_one_byte_more_does_not() {
        let dir = std::env::temp_dir().join(format!("kabir-limits-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let limit = Limit {
            bytes: 2048,
            what: "a test file",
        };
        std::fs::write(&path, vec![b'a'; 2048]).unwrap();
        assert_eq!(read_whole(&path, limit).unwrap().len(), 2048);
        std::fs::write(&path, vec![b'a'; 2049]).unwrap();
        let e = read_whole(&path, limit).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(
            e.to_string(),
            "a test file is at most 2 KiB; this file is larger"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(size(1 << 20), "1 MiB");
        assert_eq!(size(1000), "1000 bytes");
    }
}
