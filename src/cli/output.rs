//! The files a command writes: never one it reads, and never left half-written.
//!
//! A command names the files it reads and those it writes in a [`Files`] and calls
//! [`Files::check`] before it opens anything for writing. An output that is the same file as
//! an input, as a database's journal or as another output is refused. Files are compared by
//! device and inode, so that hard links, symbolic links and other spellings of a path (`./`,
//! `a/../a`, `dir//x`) are found; a file that does not exist yet is compared by the directory
//! it would be in and its name there.
//!
//! An output is written with [`Output`]: into a new file beside its target, renamed over the
//! target by [`Output::commit`] once the command has written all of it. A command that fails
//! or is interrupted (SIGINT, SIGTERM, SIGHUP) removes that file and leaves the target as it
//! was; after `kill -9` the new file may be left behind (`.NAME.kabir-PID-N.tmp`), never a
//! truncated target. Devices and pipes (`/dev/null`, a FIFO) are written directly: they hold
//! nothing to keep, and nothing can be renamed over them.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, Result};

/// What identifies a file whatever its name: its device and inode.
#[cfg(unix)]
type FileId = (u64, u64);

#[cfg(unix)]
fn file_id(meta: &fs::Metadata, _path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

/// Without inodes, the path with every link resolved.
#[cfg(not(unix))]
type FileId = PathBuf;

#[cfg(not(unix))]
fn file_id(_meta: &fs::Metadata, path: &Path) -> Option<FileId> {
    fs::canonicalize(path).ok()
}

/// Where a name puts a file, whether or not the file exists: the directory (by identity)
/// and the name in it. When the directory cannot be found either, the path made absolute
/// with its `.` and `..` taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    In(FileId, OsString),
    Path(PathBuf),
}

/// A file a command reads or writes.
#[derive(Debug)]
struct Place {
    /// What it is to the command, with its path as the user gave it: "the game file
    /// g.pgn", "--fix out.pgn".
    label: String,
    /// The file the path leads to, if it exists.
    file: Option<FileId>,
    /// Where the path puts the file (its links followed).
    slot: Option<Slot>,
    /// A device, a pipe or a socket: writing to it replaces no contents, so it never clashes
    /// (`--fix /dev/null --rejects /dev/null`, or a terminal that is also standard input).
    special: bool,
    /// The directory the path puts the file in, when it does not exist.
    missing_directory: Option<PathBuf>,
    /// The path is a directory.
    directory: bool,
}

impl Place {
    fn new(label: String, path: &Path) -> Place {
        let target = follow_links(path);
        let meta = fs::metadata(&target).ok();
        let (slot, missing) = slot(&target);
        Place {
            label,
            file: meta.as_ref().and_then(|m| file_id(m, &target)),
            missing_directory: missing.then(|| directory_of(&target).to_path_buf()),
            slot,
            special: meta.as_ref().is_some_and(|m| !m.is_file() && !m.is_dir()),
            directory: meta.is_some_and(|m| m.is_dir()),
        }
    }

    /// Whether writing one would write over the other.
    fn same(&self, other: &Place) -> bool {
        if self.special || other.special {
            return false;
        }
        (self.file.is_some() && self.file == other.file)
            || (self.slot.is_some() && self.slot == other.slot)
    }
}

/// `path` with the symbolic links of its last component followed: the file a write through
/// it changes, and beside which its new version is made (a rename over the link itself would
/// replace the link and leave the file it points to as it was). Stops at 40 links, as the
/// system does.
fn follow_links(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        if !fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
            break;
        }
        let Ok(target) = fs::read_link(&p) else {
            break;
        };
        p = match p.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    p
}

/// The directory of a path, `.` for a bare name.
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Where `target` puts its file, and whether its directory is missing.
fn slot(target: &Path) -> (Option<Slot>, bool) {
    let Some(name) = target.file_name() else {
        return (None, false);
    };
    let dir = directory_of(target);
    match fs::metadata(dir) {
        Ok(m) => (
            file_id(&m, dir).map(|id| Slot::In(id, name.to_os_string())),
            false,
        ),
        Err(e) => (
            Some(Slot::Path(lexically_absolute(target))),
            matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ),
        ),
    }
}

/// `path` made absolute with `.` and `..` taken out by name: for a path whose directory does
/// not exist, which no link can lead elsewhere.
fn lexically_absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The files a command reads and writes, to refuse an output that would write over one it
/// reads before anything is written.
#[derive(Debug, Default)]
pub struct Files {
    inputs: Vec<Place>,
    outputs: Vec<Place>,
    /// How many of `outputs` are files, whose directory must be there: those of a folder
    /// written into come after them, and their folder is made.
    files: usize,
}

/// Why an output is refused before anything is written (each is named by its label: what it
/// is to the command and its path).
#[derive(Debug)]
pub enum Refused {
    /// The output is a file the command reads.
    Input { output: String, input: String },
    /// Two outputs are one file.
    Outputs { first: String, second: String },
    /// The output's directory does not exist.
    NoDirectory { output: String, directory: PathBuf },
    /// The output file is a directory.
    IsDirectory { output: String },
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Input { output, input } => write!(
                f,
                "the output {output} is {input}: kabir never writes over a file it reads; \
                 nothing was written"
            ),
            Refused::Outputs { first, second } => write!(
                f,
                "the outputs {first} and {second} are the same file: give each its own; \
                 nothing was written"
            ),
            Refused::NoDirectory { output, directory } => write!(
                f,
                "cannot write {output}: the directory {} does not exist; nothing was written",
                directory.display()
            ),
            Refused::IsDirectory { output } => write!(
                f,
                "cannot write {output}: it is a directory; nothing was written"
            ),
        }
    }
}

impl std::error::Error for Refused {}

impl Files {
    pub fn new() -> Files {
        Files::default()
    }

    /// A file the command reads.
    pub fn read(&mut self, what: &str, path: &Path) -> &mut Files {
        self.inputs
            .push(Place::new(format!("{what} {}", path.display()), path));
        self
    }

    /// A variant definition file, when one is given.
    pub fn variant_file(&mut self, path: Option<&Path>) -> &mut Files {
        if let Some(p) = path {
            self.read("the variant file", p);
        }
        self
    }

    /// Game files as the commands take them: `-` is standard input, which may be a file
    /// (`< games.pgn`).
    pub fn game_files(&mut self, files: &[String]) -> &mut Files {
        for f in files {
            if f == "-" {
                if let Some(place) = standard_input() {
                    self.inputs.push(place);
                }
            } else {
                self.read("the game file", Path::new(f));
            }
        }
        self
    }

    /// A database, with the files SQLite keeps beside it (the journal, or the write-ahead log
    /// and its index): an output there would be taken for one, or destroy one that holds
    /// the only copy of a commit in progress. Named from the path as given and with its links
    /// followed, as SQLite names them from the file it opens.
    pub fn database(&mut self, path: &Path) -> &mut Files {
        self.read("the database", path);
        let target = follow_links(path);
        for base in [path, target.as_path()] {
            for (suffix, what) in [
                ("-journal", "the journal"),
                ("-wal", "the write-ahead log"),
                ("-shm", "the write-ahead log index"),
            ] {
                let mut name = base.as_os_str().to_owned();
                name.push(suffix);
                let label = format!("{what} of the database {}", path.display());
                self.inputs.push(Place::new(label, Path::new(&name)));
            }
        }
        self
    }

    /// A file the command writes (`what`: the option that names it).
    pub fn write(&mut self, what: &str, path: &Path) -> &mut Files {
        let place = Place::new(format!("{what} {}", path.display()), path);
        self.outputs.insert(self.files, place);
        self.files += 1;
        self
    }

    /// A folder the command makes if missing and writes `entries` into (files or folders of
    /// its own).
    pub fn write_folder(&mut self, what: &str, dir: &Path, entries: &[&str]) -> &mut Files {
        self.outputs
            .push(Place::new(format!("{what} {}", dir.display()), dir));
        for e in entries {
            let path = dir.join(e);
            self.outputs
                .push(Place::new(format!("{what} {}", path.display()), &path));
        }
        self
    }

    /// Refuses an output that is the same file as an input or as another output, and an
    /// output file that is a directory or whose directory is missing (found now, before the
    /// command writes anything else, such as a new database).
    pub fn check(&self) -> Result<(), Refused> {
        for (n, output) in self.outputs.iter().enumerate() {
            if let Some(input) = self.inputs.iter().find(|i| output.same(i)) {
                return Err(Refused::Input {
                    output: output.label.clone(),
                    input: input.label.clone(),
                });
            }
            if let Some(other) = self.outputs[..n].iter().find(|o| output.same(o)) {
                return Err(Refused::Outputs {
                    first: other.label.clone(),
                    second: output.label.clone(),
                });
            }
        }
        for output in &self.outputs[..self.files] {
            if output.directory {
                return Err(Refused::IsDirectory {
                    output: output.label.clone(),
                });
            }
            if let Some(directory) = &output.missing_directory {
                return Err(Refused::NoDirectory {
                    output: output.label.clone(),
                    directory: directory.clone(),
                });
            }
        }
        Ok(())
    }
}

/// Standard input as a file the command reads, when it is one that has an identity.
#[cfg(unix)]
fn standard_input() -> Option<Place> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let meta = File::from(fd).metadata().ok()?;
    Some(Place {
        label: "standard input (-)".to_string(),
        file: file_id(&meta, Path::new("-")),
        slot: None,
        special: !meta.is_file(),
        missing_directory: None,
        directory: meta.is_dir(),
    })
}

#[cfg(not(unix))]
fn standard_input() -> Option<Place> {
    None
}

/// An I/O error that names what was being written, keeping the kind of its cause (a broken
/// pipe stays one). Its text says the cause, as the error it wraps is not its source: the
/// writers of JSON and CSV keep the text of an I/O error and drop its source.
#[derive(Debug)]
struct WriteFailed {
    name: String,
    cause: io::Error,
}

impl fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: {}", self.name, self.cause)
    }
}

impl std::error::Error for WriteFailed {}

/// A writer whose errors name what it writes to ("standard output", a file's path).
pub struct Named<W> {
    inner: W,
    name: String,
}

impl<W: Write> Named<W> {
    pub fn new(inner: W, name: impl Into<String>) -> Named<W> {
        Named {
            inner,
            name: name.into(),
        }
    }

    fn named(&self, cause: io::Error) -> io::Error {
        // A reader that went away ends the command quietly (see `is_broken_pipe`): no name.
        if cause.kind() == io::ErrorKind::BrokenPipe {
            return cause;
        }
        io::Error::new(
            cause.kind(),
            WriteFailed {
                name: self.name.clone(),
                cause,
            },
        )
    }
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.named(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| self.named(e))
    }
}

/// Writes a line to standard error. A note that cannot be written (standard error on a full
/// device) is left unsaid rather than ending the command, which `eprintln!` does by panicking.
pub fn note(line: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr(), "{line}");
}

/// Whether the error comes from writing to a pipe whose reader has gone (`kabir ... | head`),
/// which ends the command quietly rather than failing it. JSON and CSV output reach the pipe
/// through serde_json and csv, whose errors do not give the I/O error as their source.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
            || c.downcast_ref::<csv::Error>().is_some_and(
                |e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == BrokenPipe),
            )
    })
}

/// A file being written: a new file beside its target until [`Output::commit`] renames it
/// into place. Dropped without a commit (an error, a panic), it is removed.
pub struct Output {
    /// Named by the path as the user gave it. Closed before `temp` is removed.
    file: Named<BufWriter<File>>,
    /// The file it replaces: the path with its links followed.
    target: PathBuf,
    /// The new file, until it is renamed; `None` for a device or pipe written directly.
    temp: Option<Temp>,
}

impl Output {
    /// Starts writing `path`. Nothing at `path` changes until [`Output::commit`].
    pub fn create(path: &Path) -> Result<Output> {
        let target = follow_links(path);
        let existing = fs::metadata(&target).ok();
        let name = path.display().to_string();
        if existing.as_ref().is_some_and(fs::Metadata::is_dir) {
            anyhow::bail!("cannot write {name}: it is a directory");
        }
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            let file = File::create(&target).with_context(|| format!("cannot write {name}"))?;
            return Ok(Output {
                target,
                temp: None,
                file: Named::new(BufWriter::new(file), name),
            });
        }
        if existing.is_some() {
            // Renaming over a file needs only its directory to be writable: a file the user
            // may not write stays so.
            OpenOptions::new()
                .write(true)
                .open(&target)
                .with_context(|| format!("cannot write {name}"))?;
        }
        let dir = directory_of(&target);
        let Some(file_name) = target.file_name() else {
            anyhow::bail!("cannot write {name}: not a file name");
        };
        let (temp, file) = Temp::create(dir, &file_name.to_string_lossy())
            .map_err(|e| directory_error(&name, dir, e))?;
        if let Some(meta) = &existing {
            // A replaced file keeps its permissions; a new one has the default (umask).
            fs::set_permissions(&temp.path, meta.permissions())
                .with_context(|| format!("cannot write {name}"))?;
        }
        Ok(Output {
            target,
            temp: Some(temp),
            file: Named::new(BufWriter::new(file), name),
        })
    }

    /// Completes the file and puts it in place of its target.
    pub fn commit(mut self) -> Result<()> {
        self.file.flush()?;
        let Some(mut temp) = self.temp.take() else {
            return Ok(());
        };
        let name = &self.file.name;
        // On the disk before its name is: after a crash the target is the old file or the
        // new one, whole.
        self.file
            .inner
            .get_ref()
            .sync_all()
            .with_context(|| format!("cannot write {name}"))?;
        fs::rename(&temp.path, &self.target).with_context(|| format!("cannot write {name}"))?;
        temp.renamed();
        if let Ok(dir) = File::open(directory_of(&self.target)) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Writes `bytes` to `path` whole, or leaves it as it was.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut out = Output::create(path)?;
    out.write_all(bytes)?;
    out.commit()
}

/// The error for a file that cannot be made in `dir`, saying what is wrong with the directory
/// when that is the cause.
fn directory_error(name: &str, dir: &Path, e: io::Error) -> anyhow::Error {
    match directory_problem(dir, &e) {
        Some(why) => anyhow::anyhow!("cannot write {name}: {why}"),
        None => anyhow::Error::new(e).context(format!("cannot write {name}")),
    }
}

/// What keeps a file from being made in `dir`, when the failure `e` comes from the directory:
/// it is missing, or it may not be written to.
pub fn directory_problem(dir: &Path, e: &io::Error) -> Option<String> {
    use io::ErrorKind::*;
    match e.kind() {
        NotFound if !dir.is_dir() => {
            Some(format!("the directory {} does not exist", dir.display()))
        }
        PermissionDenied => Some(format!(
            "the directory {} is not writable ({e})",
            dir.display()
        )),
        ReadOnlyFilesystem => Some(format!(
            "the directory {} is on a read-only file system",
            dir.display()
        )),
        _ => None,
    }
}

/// Why no file can be made at `path` when its directory is the reason: the directory is
/// missing or may not be written to. Asked after a failure whose own error does not say
/// (SQLite's "unable to open database file"); it tries to make a file there.
pub fn unwritable_directory(path: &Path) -> Option<String> {
    let dir = directory_of(path);
    if !dir.is_dir() {
        return Some(format!("the directory {} does not exist", dir.display()));
    }
    let name = path.file_name()?.to_string_lossy();
    match Temp::create(dir, &name) {
        Ok(_) => None,
        Err(e) => directory_problem(dir, &e),
    }
}

/// A new file beside a target, removed unless it was renamed into place.
struct Temp {
    path: PathBuf,
    /// Its place among the files an interrupt removes.
    registered: Option<usize>,
}

/// Tells apart the temporary files of one process.
static NEXT_TEMP: AtomicU32 = AtomicU32::new(0);

impl Temp {
    fn create(dir: &Path, name: &str) -> io::Result<(Temp, File)> {
        // A long name is cut so that the temporary name stays within the system's limit.
        let mut short = name.to_string();
        if short.len() > 120 {
            let mut end = 120;
            while !short.is_char_boundary(end) {
                end -= 1;
            }
            short.truncate(end);
        }
        let mut tries = 0;
        loop {
            tries += 1;
            let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".{short}.kabir-{}-{n}.tmp", std::process::id()));
            // Registered before it exists, so that an interrupt at any time after its
            // creation removes it.
            let registered = interrupt::register(&path);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => return Ok((Temp { path, registered }, file)),
                Err(e) => {
                    if let Some(slot) = registered {
                        interrupt::unregister(slot);
                    }
                    // Left by another process of the same id, after a kill.
                    if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 {
                        continue;
                    }
                    return Err(e);
                }
            }
        }
    }

    fn renamed(&mut self) {
        if let Some(slot) = self.registered.take() {
            interrupt::unregister(slot);
        }
        self.path = PathBuf::new();
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(slot) = self.registered.take() {
            interrupt::unregister(slot);
        }
        if !self.path.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Removing the temporary files when the process is interrupted: a signal handler unlinks
/// the files registered, then lets the signal end the process as it would have.
#[cfg(unix)]
mod interrupt {
    use std::ffi::{CString, c_char};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::ptr::null_mut;
    use std::sync::Once;
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// At most this many temporary files are removed on an interrupt (a command has a few
    /// open at once); one more is left behind, as after `kill -9`.
    const SLOTS: usize = 16;

    static FILES: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(null_mut()) }; SLOTS];
    static INSTALL: Once = Once::new();

    /// Registers a file to remove on an interrupt; returns its slot.
    #[allow(unsafe_code)]
    pub fn register(path: &Path) -> Option<usize> {
        INSTALL.call_once(install);
        let name = CString::new(path.as_os_str().as_bytes()).ok()?.into_raw();
        for (i, slot) in FILES.iter().enumerate() {
            if slot
                .compare_exchange(null_mut(), name, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return Some(i);
            }
        }
        // SAFETY: `name` came from `into_raw` above and was stored nowhere.
        drop(unsafe { CString::from_raw(name) });
        None
    }

    /// Forgets a registered file. Its name is not freed: the handler, on another thread, may
    /// be reading it (a few bytes for each file a command writes).
    pub fn unregister(slot: usize) {
        if let Some(s) = FILES.get(slot) {
            s.store(null_mut(), Ordering::SeqCst);
        }
    }

    #[allow(unsafe_code)]
    extern "C" fn remove_and_end(signal: libc::c_int) {
        for slot in &FILES {
            let name = slot.swap(null_mut(), Ordering::SeqCst);
            if !name.is_null() {
                // SAFETY: a name stored by `register`, never freed; unlink is
                // async-signal-safe.
                unsafe { libc::unlink(name) };
            }
        }
        // SAFETY: signal and raise are async-signal-safe; the default action ends the process
        // with this signal, as it would have without the handler.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }

    #[allow(unsafe_code)]
    fn install() {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: sigaction with zeroed structures and a handler that only calls
            // async-signal-safe functions.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction == libc::SIG_IGN
                {
                    // Ignored by whoever started kabir (`nohup`): it stays ignored.
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = remove_and_end as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(not(unix))]
mod interrupt {
    pub fn register(_: &std::path::Path) -> Option<usize> {
        None
    }

    pub fn unregister(_: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    /// A folder with one file reached in many ways, another file beside it, a folder linked
    /// to and another one:
    ///
    /// - `a/x.pgn`, `a/y.pgn`; `a/new.db` is a database not made yet;
    /// - `hard.pgn`, a hard link to `a/x.pgn`; `sym.pgn` -> `a/x.pgn`, `abs.pgn` -> its
    ///   absolute path, `chain.pgn` -> `sym.pgn`;
    /// - `sa` -> `a`; `b`, a folder.
    struct Tree {
        _dir: tempfile::TempDir,
        root: PathBuf,
    }

    fn tree() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        fs::create_dir(root.join("a")).unwrap();
        fs::create_dir(root.join("b")).unwrap();
        fs::write(root.join("a/x.pgn"), "x").unwrap();
        fs::write(root.join("a/y.pgn"), "y").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            fs::hard_link(root.join("a/x.pgn"), root.join("hard.pgn")).unwrap();
            symlink("a/x.pgn", root.join("sym.pgn")).unwrap();
            symlink(root.join("a/x.pgn"), root.join("abs.pgn")).unwrap();
            symlink("sym.pgn", root.join("chain.pgn")).unwrap();
            symlink("a", root.join("sa")).unwrap();
        }
        Tree { _dir: dir, root }
    }

    /// Ways from the tree's root to `a/x.pgn`.
    #[cfg(unix)]
    const X: &[&str] = &[
        "a/x.pgn",
        "sa/x.pgn",
        "hard.pgn",
        "sym.pgn",
        "abs.pgn",
        "chain.pgn",
        "sa/../a/x.pgn",
        "b/../sa/x.pgn",
        "a/./x.pgn",
        "sa/../sym.pgn",
    ];
    #[cfg(not(unix))]
    const X: &[&str] = &["a/x.pgn", "a/./x.pgn", "b/../a/x.pgn"];
    /// Ways to `a/y.pgn`.
    const Y: &[&str] = &["a/y.pgn", "b/../a/y.pgn", "a/./y.pgn"];
    /// Ways to `a/new.db`, which does not exist.
    #[cfg(unix)]
    const NEW: &[&str] = &["a/new.db", "sa/new.db", "b/../a/new.db", "sa/../a/new.db"];
    #[cfg(not(unix))]
    const NEW: &[&str] = &["a/new.db", "b/../a/new.db"];
    /// Detours that come back to where they start.
    #[cfg(unix)]
    const DETOURS: &[&str] = &["./", "b/../", ".//", "a/../", "sa/../", "b/./../", "/"];
    #[cfg(not(unix))]
    const DETOURS: &[&str] = &["./", "b/../", "a/../"];

    /// A spelling of one of `ways` from the tree's root: detours first, some `/` doubled.
    fn spelling(ways: &'static [&'static str]) -> impl Strategy<Value = String> {
        (
            proptest::sample::select(ways),
            proptest::collection::vec(proptest::sample::select(DETOURS), 0..4),
            any::<bool>(),
        )
            .prop_map(|(way, detours, doubled)| {
                let mut s: String = detours.concat();
                s.push_str(&if doubled {
                    way.replace('/', "//")
                } else {
                    way.to_string()
                });
                s
            })
    }

    fn at(tree: &Tree, spelled: &str) -> PathBuf {
        PathBuf::from(format!("{}/{spelled}", tree.root.display()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// However a file read is spelled, and however the output is, writing it is refused.
        #[test]
        fn every_spelling_of_an_input_is_refused(a in spelling(X), b in spelling(X)) {
            let t = tree();
            let (input, output) = (at(&t, &a), at(&t, &b));
            let clash = Files::new()
                .read("the game file", &input)
                .write("--fix", &output)
                .check()
                .expect_err("an output over the input");
            let message = clash.to_string();
            prop_assert!(message.contains(&*input.to_string_lossy()), "{}", message);
            prop_assert!(message.contains(&*output.to_string_lossy()), "{}", message);
            // Two outputs to one file as well.
            prop_assert!(Files::new().write("--fix", &input).write("--rejects", &output).check().is_err());
        }

        /// A database not made yet is its directory and its name: a spelling of either it or
        /// its journal as an output is refused.
        #[test]
        fn every_spelling_of_a_new_database_is_refused(a in spelling(NEW), b in spelling(NEW)) {
            let t = tree();
            let mut files = Files::new();
            files.database(&at(&t, &a));
            prop_assert!(files.write("--rejects", &at(&t, &b)).check().is_err());
            let mut files = Files::new();
            files.database(&at(&t, &a));
            let journal = at(&t, &format!("{b}-journal"));
            prop_assert!(files.write("--rejects", &journal).check().is_err());
        }

        /// Another file, however spelled, is not refused.
        #[test]
        fn another_file_is_written(a in spelling(X), b in spelling(Y), c in spelling(NEW)) {
            let t = tree();
            prop_assert!(Files::new()
                .read("the game file", &at(&t, &a))
                .write("--fix", &at(&t, &b))
                .write("--rejects", &at(&t, &c))
                .check()
                .is_ok());
        }
    }

    #[test]
    fn a_folder_written_into_is_checked_with_the_entries_it_writes() {
        let t = tree();
        // The folder is the database file.
        let db = t.root.join("a/x.pgn");
        let mut files = Files::new();
        files.database(&db);
        assert!(
            files
                .write_folder("--out", &db, &["games"])
                .check()
                .is_err()
        );
        // An entry it would write is a file read.
        let mut files = Files::new();
        files.read("the game file", &t.root.join("a/x.pgn"));
        assert!(
            files
                .write_folder("--out", &t.root.join("sa"), &["x.pgn"])
                .check()
                .is_err()
        );
        let mut files = Files::new();
        files.read("the game file", &t.root.join("a/x.pgn"));
        assert!(
            files
                .write_folder("--out", &t.root.join("b"), &["x.pgn"])
                .check()
                .is_ok()
        );
    }

    #[cfg(unix)]
    #[test]
    fn devices_never_clash() {
        let null = Path::new("/dev/null");
        if !null.exists() {
            return;
        }
        let mut files = Files::new();
        files.read("the game file", null);
        assert!(
            files
                .write("--fix", null)
                .write("--rejects", null)
                .check()
                .is_ok()
        );
    }

    /// The files of a folder whose names start with a dot: temporary files left behind.
    fn hidden(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect()
    }

    #[test]
    fn an_output_not_committed_leaves_the_file_as_it_was() {
        let t = tree();
        let path = t.root.join("a/x.pgn");
        let mut out = Output::create(&path).unwrap();
        out.write_all(b"half").unwrap();
        out.flush().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"x");
        drop(out);
        assert_eq!(fs::read(&path).unwrap(), b"x");
        assert_eq!(hidden(&t.root.join("a")), Vec::<String>::new());
    }

    #[test]
    fn a_committed_output_replaces_the_file() {
        let t = tree();
        let path = t.root.join("b/new.pgn");
        write_file(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        write_file(&path, b"newer").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"newer");
        assert_eq!(hidden(&t.root.join("b")), Vec::<String>::new());
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions_and_a_link_stays_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let t = tree();
        let target = t.root.join("a/x.pgn");
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        write_file(&t.root.join("chain.pgn"), b"through the links").unwrap();
        assert!(
            fs::symlink_metadata(t.root.join("chain.pgn"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(
            fs::symlink_metadata(t.root.join("sym.pgn"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&target).unwrap(), b"through the links");
        let mode = fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert_eq!(hidden(&t.root), Vec::<String>::new());
        assert_eq!(hidden(&t.root.join("a")), Vec::<String>::new());
    }

    #[test]
    fn a_directory_is_not_an_output_file() {
        let t = tree();
        let e = Output::create(&t.root.join("b")).err().unwrap();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let e = Output::create(&t.root.join("missing/x.pgn")).err().unwrap();
        assert!(e.to_string().contains("does not exist"), "{e}");
    }

    #[test]
    fn write_errors_name_the_file_and_keep_their_kind() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from(io::ErrorKind::StorageFull))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let e = Named::new(Full, "out.pgn").write_all(b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        assert!(e.to_string().starts_with("cannot write out.pgn: "), "{e}");
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from(io::ErrorKind::BrokenPipe))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let e = Named::new(Closed, "standard output")
            .write_all(b"x")
            .unwrap_err();
        assert!(is_broken_pipe(&anyhow::Error::new(e)));
    }
}
