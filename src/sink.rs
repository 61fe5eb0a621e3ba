//! Output sinks that can be made durable: [`SyncWrite`], what the writers' `finish_sync`
//! methods ([`rcfile::RcFileWriter::finish_sync`](crate::rcfile::RcFileWriter::finish_sync),
//! [`tsfile::TsFileWriter::finish_sync`](crate::tsfile::TsFileWriter::finish_sync)) need.
//!
//! Writers take any [`Write`]; only some sinks can be asked to reach the storage device
//! (`fsync`). Those implement [`SyncWrite`]: [`File`], a [`BufWriter`] around one, and
//! `&mut` / [`Box`] of either.

use std::fs::File;
use std::io::{self, BufWriter, Write};

/// A [`Write`] sink whose bytes can be forced onto the storage device.
///
/// ```
/// use colfile::sink::SyncWrite;
/// use std::io::Write;
/// let path = std::env::temp_dir().join(format!("colfile-sink-doc-{}", std::process::id()));
/// let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
/// out.write_all(b"hello")?;
/// out.sync_all()?; // flushes the buffer, then fsyncs the file
/// assert_eq!(std::fs::read(&path)?, b"hello");
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait SyncWrite: Write {
    /// Flushes every buffered byte to the operating system, then waits until the OS has
    /// written the data and the metadata (such as the length) to the device, as
    /// [`File::sync_all`] does. Once this returns `Ok`, the bytes survive a power loss.
    fn sync_all(&mut self) -> io::Result<()>;
}

impl SyncWrite for File {
    fn sync_all(&mut self) -> io::Result<()> {
        File::sync_all(self)
    }
}

impl<W: SyncWrite> SyncWrite for BufWriter<W> {
    fn sync_all(&mut self) -> io::Result<()> {
        self.flush()?;
        self.get_mut().sync_all()
    }
}

impl<W: SyncWrite + ?Sized> SyncWrite for &mut W {
    fn sync_all(&mut self) -> io::Result<()> {
        (**self).sync_all()
    }
}

impl<W: SyncWrite + ?Sized> SyncWrite for Box<W> {
    fn sync_all(&mut self) -> io::Result<()> {
        (**self).sync_all()
    }
}
