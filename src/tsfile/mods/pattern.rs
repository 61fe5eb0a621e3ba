//! IoTDB path patterns (`root.sg.*.s1`, `root.**`) and how they match a series path, with the
//! rules of IoTDB 0.13 and later.
//!
//! A path is split into nodes on `.` outside back-quotes. A back-quoted node (`` `a.b` ``)
//! is taken literally: its dots and stars are plain characters, and a doubled back-quote
//! inside stands for one. Unquoted nodes are matched so:
//!
//! * `**` matches one or more whole nodes;
//! * a node containing `*` (`*`, `s*`, `d*x`) matches exactly one node, each `*` standing for
//!   any run of characters, the empty run included (so `*` also matches the empty node that
//!   stands for an aligned device's time column);
//! * any other node matches the equal node.
//!
//! The pattern must match the **whole** path: `root.sg.d1` does not match `root.sg.d1.s1`.
//! IoTDB 0.12 matched prefixes instead (`root.sg.*` then also matched every deeper series);
//! files written by 0.12 are read with today's rules, as IoTDB 1.x itself does.

use std::fmt;

use crate::{Error, Result};

/// One node of a [`PathPattern`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PatternNode {
    /// A node matched by equality (back-quotes removed).
    Literal(String),
    /// An unquoted node containing `*`: matches one node, each `*` any character run.
    Wildcard(String),
    /// `**`: one or more nodes.
    MultiLevel,
}

/// A parsed path pattern, as IoTDB writes it in a deletion.
///
/// ```
/// use colfile::tsfile::mods::PathPattern;
/// let p: PathPattern = "root.sg.*.s*".parse()?;
/// assert!(p.matches_path("root.sg.d1", "s1"));
/// assert!(!p.matches_path("root.sg.d1.x", "s1"));
/// assert!(!"root.sg.d1".parse::<PathPattern>()?.matches_path("root.sg.d1", "s1"));
/// assert!("root.**".parse::<PathPattern>()?.matches_path("root.sg.`a.b`", ""));
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathPattern {
    text: String,
    nodes: Vec<PatternNode>,
}

impl PathPattern {
    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The parsed nodes.
    pub fn nodes(&self) -> &[PatternNode] {
        &self.nodes
    }

    /// Whether the pattern matches the series `device` + `measurement`, the device a dotted
    /// path (`root.sg.d1`, back-quoted nodes allowed) and the measurement one node (`""` for
    /// an aligned device's time column). A device that is not a valid path matches nothing.
    pub fn matches_path(&self, device: &str, measurement: &str) -> bool {
        match split_nodes(device) {
            Ok(mut nodes) => {
                nodes.push(measurement.to_owned());
                self.matches_nodes(&nodes)
            }
            Err(_) => false,
        }
    }

    /// Whether the pattern matches the whole path given as its nodes (back-quotes removed).
    pub fn matches_nodes<S: AsRef<str>>(&self, path: &[S]) -> bool {
        // `reach[j]`: the pattern nodes so far can match the first `j` path nodes.
        let mut reach: Vec<bool> = std::iter::once(true)
            .chain(path.iter().map(|_| false))
            .collect();
        for node in &self.nodes {
            let first = std::iter::once(false);
            reach = match node {
                // Once reached, every later end is reachable too (one node at least).
                PatternNode::MultiLevel => {
                    let mut open = false;
                    let steps = reach.iter().take(path.len()).map(|&r| {
                        open |= r;
                        open
                    });
                    first.chain(steps).collect()
                }
                _ => {
                    let steps = reach
                        .iter()
                        .zip(path)
                        .map(|(&r, p)| r && node_matches(node, p.as_ref()));
                    first.chain(steps).collect()
                }
            };
        }
        reach.last().copied().unwrap_or(false)
    }
}

/// Whether one non-`**` pattern node matches one path node.
fn node_matches(node: &PatternNode, value: &str) -> bool {
    match node {
        PatternNode::Literal(l) => l == value,
        PatternNode::Wildcard(w) => glob(w, value),
        PatternNode::MultiLevel => true,
    }
}

/// `*`-only glob over characters, iterative with one backtrack point.
fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while let Some(&tc) = t.get(j) {
        match p.get(i) {
            Some('*') => {
                star = Some((i, j));
                i += 1;
            }
            Some(&pc) if pc == tc => {
                i += 1;
                j += 1;
            }
            _ => match star {
                // Let the last star take one more character and retry.
                Some((si, sj)) => {
                    i = si + 1;
                    j = sj + 1;
                    star = Some((si, sj + 1));
                }
                None => return false,
            },
        }
    }
    p.iter().skip(i).all(|&c| c == '*')
}

impl std::str::FromStr for PathPattern {
    type Err = Error;
    /// Parses a pattern; an empty node or an unclosed back-quote is an
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument).
    fn from_str(text: &str) -> Result<Self> {
        let mut nodes = Vec::new();
        for (raw, quoted) in split_raw(text)? {
            nodes.push(if quoted {
                PatternNode::Literal(raw)
            } else if raw == "**" {
                PatternNode::MultiLevel
            } else if raw.contains('*') {
                PatternNode::Wildcard(raw)
            } else {
                PatternNode::Literal(raw)
            });
        }
        Ok(PathPattern {
            text: text.to_owned(),
            nodes,
        })
    }
}

impl fmt::Display for PathPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Splits a dotted path into its nodes, back-quotes removed (`` `a.b` `` gives `a.b`).
///
/// ```
/// use colfile::tsfile::mods::split_nodes;
/// assert_eq!(split_nodes("root.`a.b`.c``d")?, ["root", "a.b", "c``d"]);
/// assert!(split_nodes("root..d").is_err());
/// # Ok::<(), colfile::Error>(())
/// ```
pub fn split_nodes(path: &str) -> Result<Vec<String>> {
    Ok(split_raw(path)?.into_iter().map(|(n, _)| n).collect())
}

/// Nodes with a flag: was the node back-quoted. A node is quoted when it starts with a
/// back-quote; inside, a doubled back-quote is one literal back-quote.
fn split_raw(path: &str) -> Result<Vec<(String, bool)>> {
    let bad = |why: &str| Error::invalid(format!("{path:?} is not a valid path: {why}"));
    let mut out = Vec::new();
    let mut chars = path.chars().peekable();
    loop {
        let mut node = String::new();
        let quoted = chars.peek() == Some(&'`');
        if quoted {
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(bad("unclosed back-quote")),
                    Some('`') if chars.peek() == Some(&'`') => {
                        chars.next();
                        node.push('`');
                    }
                    Some('`') => break,
                    Some(c) => node.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == '.' {
                    break;
                }
                node.push(c);
                chars.next();
            }
        }
        if node.is_empty() && !quoted {
            return Err(bad("empty node"));
        }
        out.push((node, quoted));
        match chars.next() {
            None => return Ok(out),
            Some('.') => {}
            Some(_) => return Err(bad("text after a back-quoted node")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, path: &[&str]) -> bool {
        p.parse::<PathPattern>().unwrap().matches_nodes(path)
    }

    #[test]
    fn whole_path_rules() {
        assert!(m("root.sg.d1.s1", &["root", "sg", "d1", "s1"]));
        assert!(!m("root.sg.d1", &["root", "sg", "d1", "s1"]));
        assert!(m("root.sg.*.s1", &["root", "sg", "d9", "s1"]));
        assert!(!m("root.sg.*.s1", &["root", "sg", "a", "b", "s1"]));
        assert!(m("root.**.s1", &["root", "sg", "a", "b", "s1"]));
        assert!(!m("root.**.s1", &["root", "s1"]));
        assert!(m("root.**", &["root", "sg", "d1", ""]));
        assert!(m("root.sg.d1.*", &["root", "sg", "d1", ""]));
        assert!(!m("root.sg.d1.s1", &["root", "sg", "d1", ""]));
        assert!(m("root.sg.d*x.s", &["root", "sg", "dabx", "s"]));
        assert!(!m("root.sg.d*x.s", &["root", "sg", "dab", "s"]));
        assert!(m("root.`a.b`.s", &["root", "a.b", "s"]));
        assert!(!m("root.`*`.s", &["root", "x", "s"]));
        assert!(m("root.`*`.s", &["root", "*", "s"]));
    }

    #[test]
    fn splitting() {
        assert_eq!(split_nodes("a.`b``c`").unwrap(), ["a", "b`c"]);
        assert!(split_nodes("a.`b").is_err());
        assert!(split_nodes("a.`b`c").is_err());
        assert!(split_nodes("a.").is_err());
        assert_eq!(split_nodes("a.``").unwrap(), ["a", ""]);
    }

    #[test]
    fn glob_cases() {
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxbyy"));
        assert!(glob("**", "abc"));
        assert!(glob("a*", "a"));
    }
}
