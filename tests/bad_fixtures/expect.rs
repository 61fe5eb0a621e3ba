//! What a damaged file must fail with: the [`ErrorKind`] variant, a fragment of the message,
//! and the location fields the error must carry.

use super::gen::Made;
use colfile::{Error, ErrorKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Corrupt,
    Truncated,
    Limit,
    UnknownCodec,
    Unsupported,
    Codec,
}

impl Kind {
    fn of(k: &ErrorKind) -> Option<Kind> {
        Some(match k {
            ErrorKind::Corrupt { .. } => Kind::Corrupt,
            ErrorKind::Truncated { .. } => Kind::Truncated,
            ErrorKind::LimitExceeded { .. } => Kind::Limit,
            ErrorKind::UnknownCodec(_) => Kind::UnknownCodec,
            ErrorKind::Unsupported(_) => Kind::Unsupported,
            ErrorKind::Codec { .. } => Kind::Codec,
            _ => return None,
        })
    }
}

/// A byte offset: fixed by the format, or the one the generator recorded for the file.
#[derive(Clone, Copy, Debug)]
pub enum Pos {
    Abs(u64),
    /// [`Made::mark`].
    Mark,
    /// [`Made::chunk`].
    Chunk,
}

#[derive(Clone, Debug)]
enum Loc {
    Offset(Pos),
    RowGroup(u64),
    Column(usize),
    /// The row is the generator's mark.
    RowAtMark,
    /// A `Truncated` error whose data ends at the mark: offset + available == mark.
    EndsAtMark,
    Section(&'static str),
    Chunk(Pos),
    /// The page is [`Made::page`].
    DamagedPage,
    Series(&'static str),
    /// The location's file ends with this name.
    File(&'static str),
}

#[derive(Clone, Debug)]
pub struct Expect {
    kind: Kind,
    text: &'static str,
    loc: Vec<Loc>,
}

pub fn expect(kind: Kind, text: &'static str) -> Expect {
    Expect {
        kind,
        text,
        loc: Vec::new(),
    }
}

impl Expect {
    fn with(mut self, l: Loc) -> Self {
        self.loc.push(l);
        self
    }
    pub fn offset(self, p: Pos) -> Self {
        self.with(Loc::Offset(p))
    }
    pub fn row_group(self, g: u64) -> Self {
        self.with(Loc::RowGroup(g))
    }
    pub fn column(self, c: usize) -> Self {
        self.with(Loc::Column(c))
    }
    pub fn row_at_mark(self) -> Self {
        self.with(Loc::RowAtMark)
    }
    pub fn section(self, s: &'static str) -> Self {
        self.with(Loc::Section(s))
    }
    pub fn chunk(self, p: Pos) -> Self {
        self.with(Loc::Chunk(p))
    }
    pub fn damaged_page(self) -> Self {
        self.with(Loc::DamagedPage)
    }
    /// For a `Truncated` error: the bytes it found end at the mark.
    pub fn ends_at_mark(self) -> Self {
        self.with(Loc::EndsAtMark)
    }
    /// The series (`device.measurement`, or the device alone) starts with `s`.
    pub fn series(self, s: &'static str) -> Self {
        self.with(Loc::Series(s))
    }
    pub fn file(self, name: &'static str) -> Self {
        self.with(Loc::File(name))
    }

    /// Checks `e` against the expectation; `Err` says what differs.
    pub fn check(&self, e: &Error, made: &Made) -> Result<(), String> {
        let mut bad = Vec::new();
        if Kind::of(e.kind()) != Some(self.kind) {
            bad.push(format!("kind {:?}, expected {:?}", e.kind(), self.kind));
        }
        let text = e.to_string();
        if !text.contains(self.text) {
            bad.push(format!("message lacks {:?}", self.text));
        }
        let pos = |p: Pos| match p {
            Pos::Abs(n) => Some(n),
            Pos::Mark => Some(made.mark),
            Pos::Chunk => made.chunk,
        };
        let l = e.location();
        for want in &self.loc {
            let ok = match *want {
                Loc::Offset(p) => l.offset == pos(p),
                Loc::RowGroup(g) => l.row_group == Some(g),
                Loc::Column(c) => l.column == Some(c),
                Loc::RowAtMark => l.row == Some(made.mark),
                Loc::Section(s) => l.section == Some(s),
                Loc::Chunk(p) => l.chunk == pos(p),
                Loc::DamagedPage => l.page.is_some() && l.page == made.page,
                Loc::EndsAtMark => match e.kind() {
                    ErrorKind::Truncated { available, .. } => {
                        l.offset.map(|o| o + available) == Some(made.mark)
                    }
                    _ => false,
                },
                Loc::Series(s) => l.series.as_deref().is_some_and(|x| x.starts_with(s)),
                Loc::File(name) => l.file.as_deref().is_some_and(|f| f.ends_with(name)),
            };
            if !ok {
                bad.push(format!("location {l:?} does not match {want:?}"));
            }
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(format!("{text}: {}", bad.join("; ")))
        }
    }
}
