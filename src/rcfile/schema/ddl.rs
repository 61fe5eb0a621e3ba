//! Hive DDL column lists: `a string, b array<int>, c struct<x:int,y:map<string,double>>`,
//! or a whole `CREATE TABLE ... ( ... ) ...` statement, whose column list is taken.
//!
//! The grammar is Hive's: a column is a name (an identifier, or any text in backquotes with
//! a doubled backquote for one) and a type; type names are case-insensitive; a column or
//! struct field may carry `COMMENT '...'`, which is skipped; `--` starts a comment that runs
//! to the end of the line. After a `CREATE TABLE`'s column list everything is ignored:
//! `PARTITIONED BY` columns are not stored in the files, and the storage clauses
//! (`ROW FORMAT`, `STORED AS`, `LOCATION`, `TBLPROPERTIES`) do not change the columns.

use super::{decimal, primitive_named, sized, union, Field, HiveType, Schema, MAX_TYPE_DEPTH};
use crate::{Error, Result};

impl Schema {
    /// Parses a Hive DDL column list (`a string, b array<int>`) or a whole
    /// `CREATE [EXTERNAL] TABLE [IF NOT EXISTS] db.t ( ... ) ...` statement, taking its
    /// columns (`PARTITIONED BY` columns are not in the files and are left out). Errors name
    /// the line and column of the DDL text where parsing stopped.
    ///
    /// ```
    /// use colfile::rcfile::Schema;
    /// let s = Schema::from_hive_ddl(
    ///     "CREATE TABLE db.t (`id` INT COMMENT 'key', price DECIMAL(10,2)) STORED AS RCFILE",
    /// )
    /// .unwrap();
    /// assert_eq!(s.to_string(), "id:int,price:decimal(10,2)");
    /// assert_eq!(s.to_hive_ddl(), "id int, price decimal(10,2)");
    /// ```
    pub fn from_hive_ddl(text: &str) -> Result<Schema> {
        let mut p = Ddl { s: text, pos: 0 };
        let columns = if p.keyword("create") {
            p.create_head()?;
            p.expect('(')?;
            let cols = p.columns(')')?;
            p.expect(')')?;
            cols
        } else {
            let cols = p.columns(';')?;
            p.eat(';');
            p.skip_blank();
            if p.pos < p.s.len() {
                return Err(p.err("unexpected text after the column list"));
            }
            cols
        };
        Ok(Schema::new(columns))
    }

    /// The SerDe class a `CREATE TABLE` statement names in `ROW FORMAT SERDE '...'`, if it
    /// is one and names one (`None` for a column list or a statement [`from_hive_ddl`]
    /// rejects).
    ///
    /// [`from_hive_ddl`]: Schema::from_hive_ddl
    ///
    /// ```
    /// use colfile::rcfile::Schema;
    /// let ddl = "CREATE TABLE t (a int) ROW FORMAT SERDE \
    ///            'org.apache.hadoop.hive.serde2.columnar.ColumnarSerDe' STORED AS RCFILE";
    /// assert_eq!(
    ///     Schema::hive_ddl_serde(ddl).as_deref(),
    ///     Some("org.apache.hadoop.hive.serde2.columnar.ColumnarSerDe")
    /// );
    /// assert_eq!(Schema::hive_ddl_serde("a int"), None);
    /// ```
    pub fn hive_ddl_serde(text: &str) -> Option<String> {
        let mut p = Ddl { s: text, pos: 0 };
        if !p.keyword("create") {
            return None;
        }
        p.create_head().ok()?;
        p.expect('(').ok()?;
        p.columns(')').ok()?;
        p.expect(')').ok()?;
        // The clauses after the columns, a token at a time, up to ROW FORMAT SERDE.
        loop {
            p.skip_blank();
            let (before, first) = (p.pos, p.rest().chars().next()?);
            if p.keyword("row") && p.keyword("format") && p.keyword("serde") {
                return p.string_literal().ok();
            }
            if p.pos != before {
                continue;
            }
            let word = p.peek_word().len();
            if matches!(first, '\'' | '"') {
                p.string_literal().ok()?;
            } else if word > 0 {
                p.pos += word;
            } else {
                p.pos += first.len_utf8();
            }
        }
    }

    /// The schema as a Hive DDL column list, `a string, b array<int>`, with names that are
    /// not plain identifiers, or are reserved words, in backquotes ([`quote_hive_name`]).
    /// [`Schema::from_hive_ddl`] reads it back.
    pub fn to_hive_ddl(&self) -> String {
        let mut out = String::new();
        for (i, c) in self.columns().iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_name(&mut out, &c.name);
            out.push(' ');
            push_type(&mut out, &c.ty);
        }
        out
    }

    /// Parses either schema form, telling them apart by their start: a `CREATE` statement
    /// or a DDL column list (`a string, ...`, see [`Schema::from_hive_ddl`]), or the
    /// `name:type,...` form of [`str::parse`] — chosen when the first of `:`, `,`, `<`, `(`
    /// and whitespace-then-more-text after the first name is a `:`.
    ///
    /// ```
    /// use colfile::rcfile::Schema;
    /// let a = Schema::parse_any("a:int,b:array<string>").unwrap();
    /// let b = Schema::parse_any("a INT, b ARRAY<STRING>").unwrap();
    /// assert_eq!(a, b);
    /// ```
    pub fn parse_any(text: &str) -> Result<Schema> {
        if Schema::looks_like_hive_ddl(text) {
            Schema::from_hive_ddl(text)
        } else {
            text.parse()
        }
    }

    /// True when `text` reads as DDL (a `CREATE` statement or `name type, ...`) rather than
    /// the `name:type,...` form: the first name is backquoted, or followed by anything but
    /// `:` (see [`Schema::parse_any`]).
    pub fn looks_like_hive_ddl(text: &str) -> bool {
        let t = text.trim_start();
        if t.starts_with('`') || t.starts_with("--") {
            return true;
        }
        let word: String = t
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = t[word.len()..].chars().next();
        if word.eq_ignore_ascii_case("create") && after.is_some_and(char::is_whitespace) {
            return true;
        }
        match t.find([':', ',', '<', '(']) {
            Some(i) => !t[i..].starts_with(':'),
            None => t.split_whitespace().nth(1).is_some(),
        }
    }
}

/// Hive's reserved words (Hive 3), which need backquotes as column or table names.
#[rustfmt::skip]
const RESERVED: &[&str] = &[
    "all", "alter", "and", "array", "as", "authorization", "between", "bigint", "binary",
    "boolean", "both", "by", "cache", "case", "cast", "char", "column", "commit", "conf",
    "constraint", "create", "cross", "cube", "current", "current_date", "current_timestamp",
    "cursor", "database", "date", "daylight", "decimal", "delete", "describe", "distinct",
    "double", "drop", "else", "end", "exchange", "exists", "extended", "external", "extract",
    "false", "fetch", "float", "floor", "following", "for", "foreign", "from", "full",
    "function", "grant", "group", "grouping", "having", "if", "import", "in", "inner",
    "insert", "int", "integer", "intersect", "interval", "into", "is", "join", "lateral",
    "left", "less", "like", "local", "macro", "map", "more", "none", "not", "null", "numeric",
    "of", "on", "only", "or", "order", "out", "outer", "over", "partialscan", "partition",
    "percent", "preceding", "precision", "primary", "procedure", "range", "reads", "reduce",
    "references", "regexp", "revoke", "right", "rlike", "rollback", "rollup", "row", "rows",
    "select", "set", "smallint", "start", "sync", "table", "tablesample", "then", "time",
    "timestamp", "to", "transform", "trigger", "true", "truncate", "unbounded", "union",
    "uniquejoin", "update", "user", "using", "utc_timestamp", "values", "varchar", "views",
    "when", "where", "window", "with",
];

/// `name` as Hive DDL writes it: as it is when it is a plain identifier (ASCII letters,
/// digits, `_`) and not a reserved word, else in backquotes with any backquote doubled.
///
/// ```
/// use colfile::rcfile::schema::quote_hive_name;
/// assert_eq!(quote_hive_name("price"), "price");
/// assert_eq!(quote_hive_name("time"), "`time`");
/// assert_eq!(quote_hive_name("a`b c"), "`a``b c`");
/// ```
pub fn quote_hive_name(name: &str) -> String {
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name.to_ascii_lowercase().as_str());
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

fn push_name(out: &mut String, name: &str) {
    out.push_str(&quote_hive_name(name));
}

fn push_type(out: &mut String, ty: &HiveType) {
    match ty {
        HiveType::Array(t) => {
            out.push_str("array<");
            push_type(out, t);
            out.push('>');
        }
        HiveType::Map(k, v) => {
            out.push_str("map<");
            push_type(out, k);
            out.push(',');
            push_type(out, v);
            out.push('>');
        }
        HiveType::Struct(fields) => {
            out.push_str("struct<");
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_name(out, &f.name);
                out.push(':');
                push_type(out, &f.ty);
            }
            out.push('>');
        }
        HiveType::Union(members) => {
            out.push_str("uniontype<");
            for (i, t) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_type(out, t);
            }
            out.push('>');
        }
        primitive => out.push_str(&primitive.to_string()),
    }
}

/// A cursor over DDL text (`pos` is a byte offset on a char boundary).
struct Ddl<'a> {
    s: &'a str,
    pos: usize,
}

impl Ddl<'_> {
    fn rest(&self) -> &str {
        self.s.get(self.pos..).unwrap_or_default()
    }

    fn err(&self, msg: &str) -> Error {
        let before = self.s.get(..self.pos).unwrap_or_default();
        let line = before.matches('\n').count() + 1;
        let column = before
            .rsplit('\n')
            .next()
            .unwrap_or_default()
            .chars()
            .count()
            + 1;
        let near: String = self.rest().chars().take(20).collect();
        Error::schema(format!(
            "Hive DDL: {msg} at line {line}, column {column} (near {near:?})"
        ))
    }

    /// Skips whitespace and `--` comments.
    fn skip_blank(&mut self) {
        loop {
            let r = self.rest();
            let t = r.trim_start();
            let skip = r.len() - t.len();
            let comment = t.starts_with("--").then(|| t.find('\n').unwrap_or(t.len()));
            self.pos += skip + comment.unwrap_or(0);
            if comment.is_none() {
                return;
            }
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_blank();
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(&format!("expected '{c}'")))
        }
    }

    /// The next bare word (letters, digits, `_`), without consuming it.
    fn peek_word(&mut self) -> &str {
        self.skip_blank();
        let r = self.rest();
        let end = r
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(r.len());
        &r[..end]
    }

    /// Consumes the keyword `kw` (case-insensitive) when it is next.
    fn keyword(&mut self, kw: &str) -> bool {
        let w = self.peek_word();
        if w.eq_ignore_ascii_case(kw) {
            self.pos += w.len();
            true
        } else {
            false
        }
    }

    fn word(&mut self, what: &str) -> Result<String> {
        let w = self.peek_word().to_string();
        if w.is_empty() {
            return Err(self.err(&format!("expected {what}")));
        }
        self.pos += w.len();
        Ok(w)
    }

    /// A name: an identifier, or backquoted text (a doubled backquote is one backquote).
    fn name(&mut self) -> Result<String> {
        if !self.eat('`') {
            return self.word("a column name");
        }
        let mut name = String::new();
        loop {
            let r = self.rest();
            let Some(i) = r.find('`') else {
                return Err(self.err("a backquoted name is not closed"));
            };
            name.push_str(&r[..i]);
            self.pos += i + 1;
            if self.rest().starts_with('`') {
                name.push('`');
                self.pos += 1;
            } else {
                return Ok(name);
            }
        }
    }

    /// A quoted string literal (`'...'` or `"..."`): its text between the quotes,
    /// backslash escapes kept as written.
    fn string_literal(&mut self) -> Result<String> {
        self.skip_blank();
        let Some(quote) = self
            .rest()
            .chars()
            .next()
            .filter(|c| matches!(c, '\'' | '"'))
        else {
            return Err(self.err("expected a quoted string"));
        };
        let mut escaped = false;
        let mut end = None;
        for (i, c) in self.rest().char_indices().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                c if c == quote => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            return Err(self.err("a quoted string is not closed"));
        };
        let text = self.rest()[1..end].to_string();
        self.pos += end + 1;
        Ok(text)
    }

    fn comment(&mut self) -> Result<()> {
        if self.keyword("comment") {
            // Adjacent literals are one string to Hive: `'it''s'`.
            self.string_literal()?;
            while self.rest().starts_with(['\'', '"']) {
                self.string_literal()?;
            }
        }
        Ok(())
    }

    /// `CREATE [TEMPORARY] [EXTERNAL] TABLE [IF NOT EXISTS] [db.]name`, after `CREATE`.
    fn create_head(&mut self) -> Result<()> {
        self.keyword("temporary");
        self.keyword("external");
        if !self.keyword("table") {
            return Err(self.err("expected TABLE"));
        }
        if self.keyword("if") && !(self.keyword("not") && self.keyword("exists")) {
            return Err(self.err("expected IF NOT EXISTS"));
        }
        self.name()?;
        while self.eat('.') {
            self.name()?;
        }
        Ok(())
    }

    /// Columns up to (not including) `close`, or the end of the text.
    fn columns(&mut self, close: char) -> Result<Vec<Field>> {
        let mut out = Vec::new();
        loop {
            self.skip_blank();
            if self.rest().is_empty() || self.rest().starts_with(close) {
                return Ok(out);
            }
            let name = self.name()?;
            let ty = self.ty(0)?;
            self.comment()?;
            out.push(Field { name, ty });
            if !self.eat(',') {
                return Ok(out);
            }
        }
    }

    fn number(&mut self) -> Result<u32> {
        let w = self.word("a number")?;
        w.parse().map_err(|_| self.err("expected a number"))
    }

    fn ty(&mut self, depth: usize) -> Result<HiveType> {
        if depth >= MAX_TYPE_DEPTH {
            return Err(self.err("type nested too deeply"));
        }
        self.skip_blank();
        let at = self.pos;
        let w = self.word("a type")?.to_ascii_lowercase();
        if let Some(t) = primitive_named(&w) {
            if t == HiveType::Double {
                self.keyword("precision");
            }
            return Ok(t);
        }
        let checked = |p: &Self, r: std::result::Result<HiveType, String>| {
            r.map_err(|m| Ddl { s: p.s, pos: at }.err(&m))
        };
        Ok(match w.as_str() {
            "varchar" | "char" => {
                self.expect('(')?;
                let n = self.number()?;
                self.expect(')')?;
                checked(self, sized(&w, n))?
            }
            "decimal" | "numeric" | "dec" => {
                let (mut precision, mut scale) = (10, 0);
                if self.eat('(') {
                    precision = self.number()?;
                    if self.eat(',') {
                        scale = self.number()?;
                    }
                    self.expect(')')?;
                }
                checked(self, decimal(precision, scale))?
            }
            "array" => {
                self.expect('<')?;
                let t = self.ty(depth + 1)?;
                self.expect('>')?;
                HiveType::Array(Box::new(t))
            }
            "map" => {
                self.expect('<')?;
                let k = self.ty(depth + 1)?;
                self.expect(',')?;
                let v = self.ty(depth + 1)?;
                self.expect('>')?;
                HiveType::Map(Box::new(k), Box::new(v))
            }
            "struct" => {
                self.expect('<')?;
                let mut fields = Vec::new();
                self.skip_blank();
                while !self.rest().starts_with('>') && (fields.is_empty() || self.eat(',')) {
                    let name = self.name()?;
                    self.expect(':')?;
                    let ty = self.ty(depth + 1)?;
                    self.comment()?;
                    fields.push(Field { name, ty });
                }
                self.expect('>')?;
                HiveType::Struct(fields)
            }
            "uniontype" => {
                self.expect('<')?;
                let mut members = vec![self.ty(depth + 1)?];
                while self.eat(',') {
                    members.push(self.ty(depth + 1)?);
                }
                self.expect('>')?;
                checked(self, union(members))?
            }
            other => {
                self.pos = at;
                return Err(self.err(&format!("unknown type {other:?}")));
            }
        })
    }
}
