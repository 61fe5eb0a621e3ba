//! `colfile completions bash|zsh|fish` and `colfile man`: shell completion scripts and a
//! roff man page, both generated from [`crate::help::COMMANDS`], the table `--help` prints,
//! so a flag added to a command's help reaches the completions and the man page with it.

use crate::help::{Help, COMMANDS, HELP_OPT};
use crate::Failure;

/// `completions`' help entry.
pub const COMPLETIONS: Help = Help {
    name: "completions",
    summary: "print a shell completion script (bash, zsh or fish)",
    usage: &["completions bash|zsh|fish"],
    options: &[("", HELP_OPT)],
    notes: "The script completes commands, their flags, flag values with a fixed set of \
choices, and file names. Load it from the shell's startup file, or install it where the \
shell looks for completions: bash ~/.local/share/bash-completion/completions/colfile, zsh _colfile in a directory of $fpath, fish ~/.config/fish/completions/colfile.fish.",
    examples: &[
        "colfile completions bash > /tmp/colfile.bash",
        "colfile completions zsh > /tmp/_colfile",
        "colfile completions fish > /tmp/colfile.fish",
    ],
    overview:
        "  completions bash|zsh|fish  a shell completion script (commands, flags, values, files)",
};

/// `man`'s help entry.
pub const MAN: Help = Help {
    name: "man",
    summary: "print the manual page (roff), generated from the commands' help",
    usage: &["man"],
    options: &[("", HELP_OPT)],
    notes: "Read it with colfile man | man -l -, or install it as \
~/.local/share/man/man1/colfile.1.",
    examples: &[
        "colfile man > /tmp/colfile.1",
        "colfile man | groff -man -Tutf8 | head -20",
    ],
    overview: "  man          the manual page in roff (colfile man | man -l -)",
};

/// One flag of a command's help, split into what the shells need.
pub struct Flag {
    /// Every spelling: `-n`, `--rows`.
    pub names: Vec<&'static str>,
    /// The value's placeholder (`N`, `jsonl|csv|dump`), if the flag takes one.
    pub value: Option<&'static str>,
    /// The value's fixed choices (`jsonl`, `csv`, `dump`), if it has them.
    pub choices: Vec<&'static str>,
    /// Whether the value is a file name.
    pub file: bool,
    pub help: &'static str,
}

/// `help`'s option syntax, such as `-n N, --rows N` or `--format jsonl|csv|dump`, as a
/// [`Flag`].
fn flag_of(syntax: &'static str, help: &'static str) -> Flag {
    let mut names = Vec::new();
    let mut value = None;
    for alias in syntax.split(", ") {
        let mut words = alias.splitn(2, ' ');
        if let Some(name) = words.next() {
            names.push(name);
        }
        if let Some(v) = words.next() {
            value = Some(v);
        }
    }
    let v = value.unwrap_or("");
    let choices: Vec<&str> = v.split('|').collect();
    let is_choice = |c: &&str| {
        !c.is_empty()
            && c.chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
    };
    let choices = if choices.len() > 1 && choices.iter().all(is_choice) {
        choices
    } else {
        Vec::new()
    };
    Flag {
        names,
        value,
        choices,
        file: v.contains("FILE") || v.contains('.'),
        help,
    }
}

/// Every flag of `h`, in help order, each once.
pub fn flags(h: &Help) -> Vec<Flag> {
    let mut out: Vec<Flag> = Vec::new();
    for (_, opts) in h.options {
        for (syntax, help) in opts.iter() {
            let f = flag_of(syntax, help);
            if !out.iter().any(|o| o.names == f.names) {
                out.push(f);
            }
        }
    }
    out
}

/// The words completed after a command that are not flags: other commands for `help`, the
/// shells for `completions`, nothing for `man`, file names otherwise (`None`).
fn positional_words(h: &Help) -> Option<Vec<&'static str>> {
    match h.name {
        "completions" => Some(vec!["bash", "zsh", "fish"]),
        "man" => Some(Vec::new()),
        _ => None,
    }
}

/// `colfile completions SHELL`.
pub fn completions(args: Vec<std::ffi::OsString>) -> Result<(), Failure> {
    let shell = match args.as_slice() {
        [s] => s.to_string_lossy().into_owned(),
        _ => return Err(Failure::usage("usage: colfile completions bash|zsh|fish")),
    };
    let script = match shell.as_str() {
        "bash" => bash(),
        "zsh" => zsh(),
        "fish" => fish(),
        other => {
            return Err(Failure::usage(format!(
                "completions: unknown shell {other:?}: bash, zsh or fish"
            )))
        }
    };
    crate::out_line(script.trim_end())
}

/// `colfile man`.
pub fn man(args: Vec<std::ffi::OsString>) -> Result<(), Failure> {
    if let Some(a) = args.first() {
        return Err(Failure::usage(format!("man takes no arguments, got {a:?}")));
    }
    crate::out_line(crate::man_page::page().trim_end())
}

fn command_names() -> String {
    let mut names: Vec<&str> = COMMANDS.iter().map(|h| h.name).collect();
    names.push("help");
    names.join(" ")
}

/// The bash script: a `complete -F` function with a `case` per command.
pub fn bash() -> String {
    let mut s = String::from(
        "# bash completion for colfile (generated by `colfile completions bash`)\n\
         _colfile() {\n    local cur prev cmd\n    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n    \
         prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n    COMPREPLY=()\n    \
         if [[ $COMP_CWORD -eq 1 ]]; then\n",
    );
    s.push_str(&format!(
        "        COMPREPLY=( $(compgen -W \"{} --help --version\" -- \"$cur\") )\n        return 0\n    fi\n",
        command_names()
    ));
    s.push_str("    cmd=\"${COMP_WORDS[1]}\"\n    case \"$cmd\" in\n");
    s.push_str(&format!(
        "        help)\n            COMPREPLY=( $(compgen -W \"{}\" -- \"$cur\") )\n            ;;\n",
        command_names()
    ));
    for h in COMMANDS {
        let fl = flags(h);
        s.push_str(&format!(
            "        {})\n            case \"$prev\" in\n",
            h.name
        ));
        for f in fl.iter().filter(|f| f.value.is_some()) {
            let action = if !f.choices.is_empty() {
                format!(
                    "COMPREPLY=( $(compgen -W \"{}\" -- \"$cur\") )",
                    f.choices.join(" ")
                )
            } else if f.file {
                "COMPREPLY=( $(compgen -f -- \"$cur\") )".to_string()
            } else {
                ":".to_string()
            };
            s.push_str(&format!(
                "                {})\n                    {action}\n                    return 0\n                    ;;\n",
                f.names.join("|")
            ));
        }
        s.push_str("            esac\n");
        let all: Vec<&str> = fl.iter().flat_map(|f| f.names.iter().copied()).collect();
        let rest = match positional_words(h) {
            Some(w) => format!(
                "COMPREPLY=( $(compgen -W \"{}\" -- \"$cur\") )",
                w.join(" ")
            ),
            None => "COMPREPLY=( $(compgen -f -- \"$cur\") )".to_string(),
        };
        s.push_str(&format!(
            "            if [[ \"$cur\" == -* ]]; then\n                COMPREPLY=( $(compgen -W \"{}\" -- \"$cur\") )\n            else\n                {rest}\n            fi\n            ;;\n",
            all.join(" ")
        ));
    }
    s.push_str(
        "    esac\n    return 0\n}\ncomplete -o filenames -o bashdefault -F _colfile colfile\n",
    );
    s
}

/// `text` inside zsh single quotes, with `_arguments`' brackets and colons made harmless.
fn zsh_text(text: &str) -> String {
    text.replace('\'', "'\\''")
        .replace('[', "(")
        .replace(']', ")")
        .replace(':', "\\:")
}

/// The zsh script: `_describe` for the commands and `_arguments` for each command's flags.
pub fn zsh() -> String {
    let mut s = String::from(
        "#compdef colfile\n# zsh completion for colfile (generated by `colfile completions zsh`)\n\n_colfile() {\n    local -a commands\n    commands=(\n",
    );
    for h in COMMANDS {
        s.push_str(&format!("        '{}:{}'\n", h.name, zsh_text(h.summary)));
    }
    s.push_str("        'help:print the help of a command'\n    )\n");
    s.push_str(
        "    if (( CURRENT == 2 )); then\n        _describe 'command' commands\n        return\n    fi\n    local cmd=$words[2]\n    shift words\n    (( CURRENT-- ))\n    case $cmd in\n        help)\n            _describe 'command' commands\n            ;;\n",
    );
    for h in COMMANDS {
        s.push_str(&format!("        {})\n            _arguments -s", h.name));
        for f in flags(h) {
            let help = zsh_text(f.help);
            let action = match f.value {
                None => String::new(),
                Some(v) if !f.choices.is_empty() => {
                    format!(":{}:({})", zsh_text(v), f.choices.join(" "))
                }
                Some(v) if f.file => format!(":{}:_files", zsh_text(v)),
                Some(v) => format!(":{}: ", zsh_text(v)),
            };
            for name in &f.names {
                s.push_str(&format!(" \\\n                '*{name}[{help}]{action}'"));
            }
        }
        let rest = match positional_words(h) {
            Some(w) if w.is_empty() => String::new(),
            Some(w) => format!(" \\\n                '1:shell:({})'", w.join(" ")),
            None => " \\\n                '*:file:_files'".to_string(),
        };
        s.push_str(&format!("{rest}\n            ;;\n"));
    }
    s.push_str("    esac\n}\n\n_colfile \"$@\"\n");
    s
}

/// `text` inside fish single quotes.
fn fish_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\'', "\\'")
}

/// The fish script: one `complete` line per command and per flag.
pub fn fish() -> String {
    let mut s = String::from(
        "# fish completion for colfile (generated by `colfile completions fish`)\ncomplete -c colfile -f\n",
    );
    let all = command_names();
    for h in COMMANDS {
        s.push_str(&format!(
            "complete -c colfile -n 'not __fish_seen_subcommand_from {all}' -a {} -d '{}'\n",
            h.name,
            fish_text(h.summary)
        ));
    }
    s.push_str(&format!(
        "complete -c colfile -n 'not __fish_seen_subcommand_from {all}' -a help -d 'print the help of a command'\n"
    ));
    s.push_str(&format!(
        "complete -c colfile -n '__fish_seen_subcommand_from help' -a '{}'\n",
        COMMANDS
            .iter()
            .map(|h| h.name)
            .collect::<Vec<_>>()
            .join(" ")
    ));
    for h in COMMANDS {
        let cond = format!("-n '__fish_seen_subcommand_from {}'", h.name);
        match positional_words(h) {
            Some(w) if !w.is_empty() => s.push_str(&format!(
                "complete -c colfile {cond} -a '{}'\n",
                w.join(" ")
            )),
            Some(_) => {}
            None => s.push_str(&format!("complete -c colfile {cond} -F\n")),
        }
        for f in flags(h) {
            let mut line = format!("complete -c colfile {cond}");
            for name in &f.names {
                match name.strip_prefix("--") {
                    Some(long) => line.push_str(&format!(" -l {long}")),
                    None => line.push_str(&format!(" -s {}", name.trim_start_matches('-'))),
                }
            }
            if !f.choices.is_empty() {
                line.push_str(&format!(" -x -a '{}'", f.choices.join(" ")));
            } else if f.file {
                line.push_str(" -r -F");
            } else if f.value.is_some() {
                line.push_str(" -x");
            }
            line.push_str(&format!(" -d '{}'\n", fish_text(f.help)));
            s.push_str(&line);
        }
    }
    s
}
