//! A one-line progress display on stderr for long commands (`convert`, `write`, `scan`,
//! `verify`, `recover`): percent of the input consumed when its size is known, rows, and
//! rows per second, redrawn at most ten times a second, or a note per step (the file being
//! verified). Shown when stderr is a terminal or `--progress` asks for it, never with
//! `--no-progress`; stdout is never touched.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often the line may be redrawn.
const REDRAW: Duration = Duration::from_millis(100);

/// The progress display of one command run.
pub struct Progress {
    shown: bool,
    /// The past tense the summary line starts with (`converted`, `scanned`, ...).
    verb: &'static str,
    /// stderr is a terminal: the line is redrawn in place (else one line per draw).
    tty: bool,
    started: Instant,
    last_draw: Option<Instant>,
    rows: u64,
    /// Input bytes consumed and the input's size, when the source knows them.
    consumed: u64,
    total: Option<u64>,
    /// Whether a line is on screen (so the next one overwrites it).
    drawn: bool,
}

impl Progress {
    /// `forced`: `Some(true)` for `--progress`, `Some(false)` for `--no-progress`, `None`
    /// to show it only when stderr is a terminal.
    pub fn new(forced: Option<bool>, total: Option<u64>) -> Self {
        let tty = std::io::stderr().is_terminal();
        Progress {
            shown: forced.unwrap_or(tty),
            verb: "converted",
            tty,
            started: Instant::now(),
            last_draw: None,
            rows: 0,
            consumed: 0,
            total,
            drawn: false,
        }
    }

    /// The summary line's verb: `scanned` gives `scanned N rows in S s`.
    pub fn with_verb(mut self, verb: &'static str) -> Self {
        self.verb = verb;
        self
    }

    /// Whether the display is on (a terminal, or `--progress`).
    pub fn shown(&self) -> bool {
        self.shown
    }

    /// Draws `text` at once (a step such as the file now being read), when shown.
    pub fn note(&mut self, text: &str) {
        if self.shown {
            self.print(text);
        }
    }

    /// The size of the input, for the percent shown (`None`: rows only).
    pub fn set_total(&mut self, total: Option<u64>) {
        self.total = total;
    }

    /// One more row; `consumed`: the input bytes read so far, when known.
    pub fn row(&mut self, consumed: Option<u64>) {
        self.rows_done(1, consumed);
    }

    /// `n` more rows.
    pub fn rows_done(&mut self, n: u64, consumed: Option<u64>) {
        let before = self.rows;
        self.rows += n;
        if let Some(c) = consumed {
            self.consumed = c;
        }
        // Look at the clock once every 256 rows only.
        if self.shown && (before == 0 || before / 256 != self.rows / 256) {
            let now = Instant::now();
            if self.last_draw.is_none_or(|t| now - t >= REDRAW) {
                self.last_draw = Some(now);
                self.draw(now);
            }
        }
    }

    /// Rows counted so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    fn draw(&mut self, now: Instant) {
        let secs = (now - self.started).as_secs_f64();
        let rate = if secs > 0.0 {
            self.rows as f64 / secs
        } else {
            0.0
        };
        let percent = match self.total {
            Some(t) if t > 0 => format!("{:5.1}% ", 100.0 * self.consumed.min(t) as f64 / t as f64),
            _ => String::new(),
        };
        self.print(&format!("{percent}{} rows, {rate:.0} rows/s", self.rows));
    }

    /// Puts `text` on stderr: in place on a terminal, else as a line of its own.
    fn print(&mut self, text: &str) {
        let mut err = std::io::stderr().lock();
        if self.tty {
            // `\r` and clear-to-end-of-line: the next draw (or the summary) replaces it.
            let _ = write!(err, "\r{text}\x1b[K");
            self.drawn = true;
        } else {
            let _ = writeln!(err, "{text}");
        }
        let _ = err.flush();
    }

    /// Ends the display with `converted N rows in S s` (the verb of
    /// [`with_verb`](Self::with_verb); only when it is shown).
    pub fn finish(&mut self) {
        let what = format!("{} {} rows", self.verb, self.rows);
        self.finish_with(&what);
    }

    /// Ends the display with `WHAT in S s` (only when it is shown).
    pub fn finish_with(&mut self, what: &str) {
        if !self.shown {
            return;
        }
        let secs = self.started.elapsed().as_secs_f64();
        let mut err = std::io::stderr().lock();
        if self.drawn {
            let _ = write!(err, "\r\x1b[K");
        }
        let _ = writeln!(err, "{what} in {secs:.3} s");
        self.drawn = false;
    }

    /// Clears a drawn line before an error message is printed.
    pub fn abandon(&mut self) {
        if self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err);
            self.drawn = false;
        }
    }
}
