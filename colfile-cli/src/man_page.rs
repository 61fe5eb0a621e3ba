//! `colfile man`: the manual page in roff (the `man` macros), generated from
//! [`crate::help::COMMANDS`], the table `--help` prints: NAME, SYNOPSIS, DESCRIPTION, then one
//! subsection per command with its usage, flags, notes and examples.

use crate::help::COMMANDS;

/// `text` as roff text: backslashes and hyphens escaped, and a leading `.` or `'` (which
/// roff would take for a request) made literal.
fn roff(text: &str) -> String {
    let t = text.replace('\\', "\\e").replace('-', "\\-");
    if t.starts_with('.') || t.starts_with('\'') {
        format!("\\&{t}")
    } else {
        t
    }
}

/// The whole page.
pub fn page() -> String {
    let mut s = format!(
        ".TH COLFILE 1 \"\" \"colfile {}\" \"User Commands\"\n",
        env!("CARGO_PKG_VERSION")
    );
    s.push_str(".SH NAME\ncolfile \\- read, write, convert, verify and repair Hive RCFile and Apache TsFile files\n");
    s.push_str(".SH SYNOPSIS\n");
    for h in COMMANDS {
        for u in h.usage {
            s.push_str(&format!(".B colfile\n{}\n.br\n", roff(u)));
        }
    }
    s.push_str(
        ".SH DESCRIPTION\n\
         \\fBcolfile\\fR reads, inspects, writes and converts Hive RCFile and Apache TsFile files. \
         The file format is detected from its magic bytes. \
         \\fBcolfile\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR (or \\fBcolfile help\\fR \\fIcommand\\fR) \
         prints a command's options; this page holds the same text.\n\
         .PP\nErrors are one line on standard error and a non\\-zero exit status.\n\
         .SH COMMANDS\n",
    );
    for h in COMMANDS {
        s.push_str(&format!(
            ".SS \"colfile {}\"\n{}\n",
            h.name,
            roff(h.summary)
        ));
        s.push_str(".PP\n.nf\n");
        for u in h.usage {
            s.push_str(&format!("colfile {}\n", roff(u)));
        }
        s.push_str(".fi\n");
        for (heading, opts) in h.options {
            if !heading.is_empty() {
                s.push_str(&format!(".PP\n\\fI{}:\\fR\n", roff(heading)));
            }
            for (flag, what) in opts.iter() {
                s.push_str(&format!(".TP\n.B {}\n{}\n", roff(flag), roff(what)));
            }
        }
        for para in h.notes.lines().filter(|l| !l.trim().is_empty()) {
            s.push_str(&format!(".PP\n{}\n", roff(para)));
        }
        if !h.examples.is_empty() {
            s.push_str(".PP\nExamples:\n.RS\n.nf\n");
            for e in h.examples {
                s.push_str(&format!("{}\n", roff(e)));
            }
            s.push_str(".fi\n.RE\n");
        }
    }
    s.push_str(
        ".SH EXIT STATUS\n0 on success, 1 for bad input or an I/O error, 2 for a usage error.\n\
         .SH SEE ALSO\n\\fBcolfile\\-sql\\fR, the DataFusion build that \\fBcolfile sql\\fR runs.\n",
    );
    s
}
