//! `colfile completions bash|zsh|fish` and `colfile man`: generated from the table `--help`
//! prints, so every command and flag `--help` lists is in them; the scripts pass their
//! shell's syntax check and the page renders under groff without warnings (each check
//! skipped when the program is not installed).

use std::process::{Command, Output};

#[path = "support/run.rs"]
mod run;

fn colfile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_colfile"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let out = colfile(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The commands `colfile --help` lists (the first word of each overview entry).
fn commands() -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for line in stdout_of(&["--help"]).lines() {
        let Some(rest) = line.strip_prefix("  ") else {
            continue;
        };
        if rest.starts_with(' ') {
            continue;
        }
        let word = rest.split_whitespace().next().unwrap_or("");
        if word.chars().all(|c| c.is_ascii_lowercase()) && !names.iter().any(|n| n == word) {
            names.push(word.to_string());
        }
    }
    assert!(names.len() >= 14, "{names:?}");
    names
}

/// The flags `colfile CMD --help` lists in its options section.
fn flags(cmd: &str) -> Vec<String> {
    let help = stdout_of(&[cmd, "--help"]);
    let section = help
        .split("\noptions:\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap();
    let mut out = Vec::new();
    for line in section.lines() {
        let t = line.trim_start();
        if !t.starts_with('-') {
            continue;
        }
        let syntax = t.split("  ").next().unwrap();
        for alias in syntax.split(", ") {
            out.push(alias.split(' ').next().unwrap().to_string());
        }
    }
    assert!(out.iter().any(|f| f == "--help"), "{cmd}: {out:?}");
    out
}

fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || "|\"'()[]=;".contains(c))
        .any(|w| w == word)
}

#[test]
fn every_command_and_flag_is_in_the_scripts_and_the_page() {
    let bash = stdout_of(&["completions", "bash"]);
    let zsh = stdout_of(&["completions", "zsh"]);
    let fish = stdout_of(&["completions", "fish"]);
    let man = stdout_of(&["man"]).replace("\\-", "-");
    let cmds = commands();
    for c in ["completions", "man", "cat", "convert", "verify"] {
        assert!(cmds.iter().any(|n| n == c), "{c} not in --help");
    }
    for cmd in &cmds {
        assert!(has_word(&bash, cmd), "bash: {cmd}");
        assert!(zsh.contains(&format!("'{cmd}:")), "zsh: {cmd}");
        assert!(fish.contains(&format!(" -a {cmd} ")), "fish: {cmd}");
        assert!(
            man.contains(&format!(".SS \"colfile {cmd}\"")),
            "man: {cmd}"
        );
        for flag in flags(cmd) {
            assert!(has_word(&bash, &flag), "bash: {cmd} {flag}");
            assert!(zsh.contains(&format!("'*{flag}[")), "zsh: {cmd} {flag}");
            assert!(
                man.lines()
                    .filter_map(|l| l.strip_prefix(".B "))
                    .any(|l| l.split([' ', ',']).any(|w| w == flag)),
                "man: {cmd} {flag}"
            );
            let fish_flag = match flag.strip_prefix("--") {
                Some(l) => format!(" -l {l}"),
                None => format!(" -s {}", &flag[1..]),
            };
            assert!(
                fish.lines().any(
                    |l| l.contains(&format!("__fish_seen_subcommand_from {cmd}'"))
                        && l.contains(&fish_flag)
                ),
                "fish: {cmd} {flag}"
            );
        }
    }
}

#[test]
fn every_flag_of_the_overall_help_is_completed_and_documented() {
    let bash = stdout_of(&["completions", "bash"]);
    let man = stdout_of(&["man"]).replace("\\-", "-");
    let help = stdout_of(&["--help"]);
    // Every word that is a flag, but cargo's (how to build colfile-sql).
    let flags: Vec<&str> = help
        .lines()
        .filter(|l| !l.contains("cargo "))
        .flat_map(|l| l.split(|c: char| c.is_whitespace() || "[]()|,=`:;".contains(c)))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .collect();
    assert!(flags.len() > 40, "{flags:?}");
    for flag in flags {
        assert!(has_word(&bash, flag), "bash: {flag}");
        assert!(man.contains(flag), "man: {flag}");
    }
}

#[test]
fn the_page_has_its_sections_and_examples() {
    let man = stdout_of(&["man"]);
    assert!(man.starts_with(".TH COLFILE 1 "), "{}", &man[..40]);
    for s in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH COMMANDS",
    ] {
        assert!(man.contains(&format!("\n{s}\n")), "{s}");
    }
    let text = man.replace("\\-", "-");
    assert!(text.contains("colfile cat fixtures/tsfile/basic.tsfile --limit 3\n"));
    assert!(text.contains(".B --format jsonl|csv|dump\n"));
}

/// Runs `program args` with `input` on stdin, or `None` when it is not installed.
fn run_tool(program: &str, args: &[&str], input: &str) -> Option<Output> {
    run::with_stdin(Command::new(program).args(args), input).ok()
}

fn assert_clean(what: &str, out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.is_empty(), "{what}: {err}");
}

#[test]
fn the_scripts_pass_their_shells_syntax_checks() {
    for (shell, args) in [
        ("bash", vec!["-n"]),
        ("zsh", vec!["-n"]),
        ("fish", vec!["--no-execute"]),
    ] {
        let script = stdout_of(&["completions", shell]);
        match run_tool(shell, &args, &script) {
            Some(out) => assert_clean(shell, &out),
            None => eprintln!("{shell} not installed: its syntax check is skipped"),
        }
    }
}

#[test]
fn groff_renders_the_page_without_warnings() {
    let man = stdout_of(&["man"]);
    match run_tool("groff", &["-man", "-Tutf8", "-ww", "-z"], &man) {
        Some(out) => assert_clean("groff", &out),
        None => eprintln!("groff not installed: the rendering check is skipped"),
    }
}

/// What bash's completion offers for `words` (the last one being completed).
fn bash_complete(words: &[&str]) -> Vec<String> {
    let script = stdout_of(&["completions", "bash"]);
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "{script}\nCOMP_WORDS=({})\nCOMP_CWORD={}\n_colfile\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        quoted.join(" "),
        words.len() - 1
    );
    let Some(out) = run_tool("bash", &[], &program) else {
        return Vec::new();
    };
    assert_clean("bash", &out);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn bash_completes_commands_flags_and_values() {
    if run_tool("bash", &["-c", "true"], "").is_none() {
        return;
    }
    assert_eq!(bash_complete(&["colfile", "conv"]), ["convert"]);
    assert_eq!(
        bash_complete(&["colfile", "cat", "--format", ""]),
        ["jsonl", "csv", "dump"]
    );
    assert_eq!(
        bash_complete(&["colfile", "completions", ""]),
        ["bash", "zsh", "fish"]
    );
    assert_eq!(
        bash_complete(&["colfile", "convert", "x.rc", "--no-p"]),
        ["--no-progress"]
    );
    // A value that is not a file nor a choice: nothing to offer.
    assert!(bash_complete(&["colfile", "cat", "--limit", ""]).is_empty());
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let out = colfile(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bash, zsh or fish"));
}
