//! Parsing a [`Filter`] from text, for command lines: `impl FromStr for Filter`, whose docs
//! give the grammar.

use std::str::FromStr;

use super::filter::{CmpOp, Filter};
use crate::tsfile::format::value::Value;
use crate::{Error, Result};

/// A token: a word, a quoted string, a number, or punctuation.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Op(CmpOp),
    Open,
    Close,
}

fn tokens(s: &str) -> Result<Vec<Tok>> {
    let bad = |m: String| Error::invalid(format!("filter {s:?}: {m}"));
    let mut out = Vec::new();
    let mut it = s.char_indices().peekable();
    while let Some(&(i, c)) = it.peek() {
        match c {
            c if c.is_whitespace() => {
                it.next();
            }
            '(' | ')' => {
                it.next();
                out.push(if c == '(' { Tok::Open } else { Tok::Close });
            }
            '\'' | '"' => {
                it.next();
                let mut v = String::new();
                loop {
                    match it.next() {
                        // A doubled quote stands for itself.
                        Some((_, q)) if q == c => {
                            if it.peek().map(|p| p.1) == Some(c) {
                                it.next();
                                v.push(c);
                            } else {
                                break;
                            }
                        }
                        Some((_, x)) => v.push(x),
                        None => return Err(bad(format!("unclosed quote at {i}"))),
                    }
                }
                out.push(Tok::Quoted(v));
            }
            '=' | '!' | '<' | '>' => {
                let rest = &s[i..];
                let (op, n) = [
                    ("==", CmpOp::Eq, 2),
                    ("!=", CmpOp::Ne, 2),
                    ("<>", CmpOp::Ne, 2),
                    ("<=", CmpOp::Le, 2),
                    (">=", CmpOp::Ge, 2),
                    ("=", CmpOp::Eq, 1),
                    ("<", CmpOp::Lt, 1),
                    (">", CmpOp::Gt, 1),
                ]
                .into_iter()
                .find(|(p, _, _)| rest.starts_with(p))
                .map(|(_, o, n)| (o, n))
                .ok_or_else(|| bad(format!("unknown operator at {i}")))?;
                for _ in 0..n {
                    it.next();
                }
                out.push(Tok::Op(op));
            }
            _ => {
                let mut w = String::new();
                while let Some(&(_, x)) = it.peek() {
                    if x.is_whitespace() || "()'\"=!<>".contains(x) {
                        break;
                    }
                    w.push(x);
                    it.next();
                }
                out.push(Tok::Word(w));
            }
        }
    }
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    pos: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn err(&self, m: &str) -> Error {
        Error::invalid(format!("filter {:?}: {m}", self.text))
    }
    fn peek_kw(&self, kw: &str) -> bool {
        matches!(self.toks.get(self.pos), Some(Tok::Word(w)) if w.eq_ignore_ascii_case(kw))
    }
    fn eat_kw(&mut self, kw: &str) -> bool {
        let hit = self.peek_kw(kw);
        self.pos += hit as usize;
        hit
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn expr(&mut self, depth: usize) -> Result<Filter> {
        if depth > 64 {
            return Err(self.err("nested too deeply"));
        }
        let mut f = self.and(depth)?;
        while self.eat_kw("or") {
            f = f.or(self.and(depth)?);
        }
        Ok(f)
    }

    fn and(&mut self, depth: usize) -> Result<Filter> {
        let mut f = self.unary(depth)?;
        while self.eat_kw("and") {
            f = f.and(self.unary(depth)?);
        }
        Ok(f)
    }

    fn unary(&mut self, depth: usize) -> Result<Filter> {
        if depth > 64 {
            return Err(self.err("nested too deeply"));
        }
        if self.eat_kw("not") {
            return Ok(self.unary(depth + 1)?.negate());
        }
        match self.next() {
            Some(Tok::Open) => {
                let f = self.expr(depth + 1)?;
                match self.next() {
                    Some(Tok::Close) => Ok(f),
                    _ => Err(self.err("missing )")),
                }
            }
            Some(Tok::Word(c)) | Some(Tok::Quoted(c)) => self.rest(&c),
            _ => Err(self.err("expected a column name")),
        }
    }

    fn rest(&mut self, col: &str) -> Result<Filter> {
        if self.eat_kw("is") {
            let not = self.eat_kw("not");
            if !self.eat_kw("null") {
                return Err(self.err("expected null after is"));
            }
            let f = Filter::is_null(col);
            return Ok(if not { f.negate() } else { f });
        }
        let not = self.eat_kw("not");
        if self.eat_kw("between") {
            let lo = self.literal()?;
            if !self.eat_kw("and") {
                return Err(self.err("expected and in between"));
            }
            let f = Filter::between(col, lo, self.literal()?);
            return Ok(if not { f.negate() } else { f });
        }
        if not {
            return Err(self.err("expected between after not"));
        }
        match self.next() {
            Some(Tok::Op(op)) => Ok(Filter::cmp(col, op, self.literal()?)),
            _ => Err(self.err(&format!("expected an operator after {col}"))),
        }
    }

    fn literal(&mut self) -> Result<Value> {
        match self.next() {
            Some(Tok::Quoted(s)) => Ok(Value::string(&s)),
            Some(Tok::Word(w)) => Ok(if w.eq_ignore_ascii_case("true") {
                Value::Boolean(true)
            } else if w.eq_ignore_ascii_case("false") {
                Value::Boolean(false)
            } else if let Ok(i) = w.parse::<i64>() {
                Value::Int64(i)
            } else if let Ok(d) = w.parse::<f64>() {
                Value::Double(d)
            } else {
                Value::string(&w)
            }),
            _ => Err(self.err("expected a value")),
        }
    }
}

impl FromStr for Filter {
    type Err = Error;

    /// Parses a filter from text:
    ///
    /// ```text
    /// expr    := and ("or" and)*
    /// and     := unary ("and" unary)*
    /// unary   := "not" unary | "(" expr ")" | column rest
    /// rest    := op literal | "is" ["not"] "null" | ["not"] "between" literal "and" literal
    /// op      := = | == | != | <> | < | <= | > | >=
    /// literal := number | 'text' | "text" | true | false | bare-word (as text)
    /// ```
    ///
    /// Keywords are matched without regard to case. Integers become INT64 literals and other
    /// numbers DOUBLE ones; both compare with any numeric column by value.
    ///
    /// ```
    /// use colfile::tsfile::{Filter, Value};
    /// let f: Filter = "city = 'beijing' and not (temp < 20 or temp is null)".parse()?;
    /// let want = Filter::eq("city", Value::string("beijing")).and(
    ///     Filter::lt("temp", Value::Int64(20)).or(Filter::is_null("temp")).negate(),
    /// );
    /// assert_eq!(f, want);
    /// # Ok::<(), colfile::Error>(())
    /// ```
    fn from_str(s: &str) -> Result<Filter> {
        let mut p = Parser {
            toks: tokens(s)?,
            pos: 0,
            text: s,
        };
        let f = p.expr(0)?;
        if p.pos < p.toks.len() {
            return Err(p.err("unexpected text after the filter"));
        }
        Ok(f)
    }
}
