//! Values as a mongosh user types them, read back into BSON: the reader beside `mongosh_text`
//! (which prints them). Relaxed shell syntax: unquoted keys (`{_id: 5}`), single or double
//! quotes, trailing commas, `ObjectId("…")`, `ISODate("…")` and `new Date("…")`,
//! `NumberLong(…)`, `NumberInt(…)`, `MinKey`/`MaxKey`, `Infinity`, `NaN`, and strict or
//! relaxed Extended JSON wrappers (`{"$oid": "…"}`), which the BSON conversion reads.
//!
//! Numbers follow the shell's driver (js-bson's `serialize`, `src/parser/serializer.ts`): an
//! integer that fits 32 bits is an int32, any other number a double; `NumberLong` is an int64;
//! one departure: an integer literal beyond 2^53 (a hashed bound) is read exactly, as an int64.
//!
//! Part of `model`: pure functions, no I/O. Never panics; every error names the position.

use bson::{Bson, Document};

/// Reads one value (a filter is a document) of relaxed mongosh syntax; the whole text must be
/// that value.
pub fn value(text: &str) -> Result<Bson, String> {
    let mut r = Reader {
        s: text.as_bytes(),
        text,
        at: 0,
        depth: 0,
    };
    let v = r.value()?;
    r.space();
    if r.at < r.s.len() {
        return Err(r.err("unexpected text after the value"));
    }
    // Extended JSON wrappers ({"$oid": …}, {"$date": …}) become their BSON types.
    Ok(extended(v))
}

/// Reads a document (`{…}`), as a query filter.
pub fn document(text: &str) -> Result<Document, String> {
    match value(text)? {
        Bson::Document(d) => Ok(d),
        _ => Err("a filter is a document: {…}".into()),
    }
}

/// The deepest nesting read (as the server's limit on BSON depth, `BSONDepth::kDefaultMaxAllowableDepth`
/// in `src/mongo/bson/bson_depth.h`, is 200; the reader stops well before any stack limit).
const MAX_DEPTH: usize = 180;

struct Reader<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
    depth: usize,
}

impl Reader<'_> {
    fn err(&self, what: &str) -> String {
        let col = self.text[..self.at.min(self.text.len())].chars().count() + 1;
        format!("{what} at column {col}")
    }

    fn space(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        self.space();
        if self.peek() == Some(b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        if self.eat(b) {
            Ok(())
        } else {
            Err(self.err(&format!("expected `{}`", b as char)))
        }
    }

    fn value(&mut self) -> Result<Bson, String> {
        self.space();
        match self.peek() {
            Some(b'{') => self.nested(Self::doc),
            Some(b'[') => self.nested(Self::array),
            Some(b'"' | b'\'') => self.string().map(Bson::String),
            Some(b'-' | b'+' | b'.' | b'0'..=b'9') => self.number(),
            Some(b) if is_word(b) => self.word_value(),
            None | Some(_) => Err(self.err("expected a value")),
        }
    }

    fn nested(&mut self, read: fn(&mut Self) -> Result<Bson, String>) -> Result<Bson, String> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err("nested too deep"));
        }
        self.depth += 1;
        let v = read(self);
        self.depth -= 1;
        v
    }

    fn doc(&mut self) -> Result<Bson, String> {
        self.expect(b'{')?;
        let mut d = Document::new();
        loop {
            if self.eat(b'}') {
                return Ok(Bson::Document(d));
            }
            self.space();
            let key = match self.peek() {
                Some(b'"' | b'\'') => self.string()?,
                Some(b) if is_word(b) => self.word().to_string(),
                _ => return Err(self.err("expected a field name")),
            };
            self.expect(b':')?;
            let v = self.value()?;
            d.insert(key, v);
            if !self.eat(b',') {
                self.expect(b'}')?;
                return Ok(Bson::Document(d));
            }
        }
    }

    fn array(&mut self) -> Result<Bson, String> {
        self.expect(b'[')?;
        let mut a = Vec::new();
        loop {
            if self.eat(b']') {
                return Ok(Bson::Array(a));
            }
            a.push(self.value()?);
            if !self.eat(b',') {
                self.expect(b']')?;
                return Ok(Bson::Array(a));
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.s[self.at];
        self.at += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.text[self.at..].chars().next() else {
                return Err(self.err("unterminated string"));
            };
            self.at += c.len_utf8();
            match c {
                c if c as u32 == u32::from(quote) => return Ok(out),
                '\\' => out.push(self.escape()?),
                c => out.push(c),
            }
        }
    }

    fn escape(&mut self) -> Result<char, String> {
        let Some(c) = self.text[self.at..].chars().next() else {
            return Err(self.err("unterminated string"));
        };
        self.at += c.len_utf8();
        Ok(match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            '0' => '\0',
            'u' => {
                let hex = self
                    .text
                    .get(self.at..self.at + 4)
                    .ok_or_else(|| self.err("\\u needs four hex digits"))?;
                let code = u32::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| hex.bytes().all(|b| b.is_ascii_hexdigit()))
                    .ok_or_else(|| self.err("\\u needs four hex digits"))?;
                self.at += 4;
                char::from_u32(code).ok_or_else(|| self.err("\\u of a lone surrogate"))?
            }
            other => other,
        })
    }

    fn number(&mut self) -> Result<Bson, String> {
        let start = self.at;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.at += 1;
        }
        if self.peek().is_some_and(is_word) {
            let sign = if self.s[start] == b'-' { -1.0 } else { 1.0 };
            return match self.word() {
                "Infinity" => Ok(Bson::Double(sign * f64::INFINITY)),
                _ => Err(self.err("expected a number")),
            };
        }
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E'))
            || (matches!(self.peek(), Some(b'-' | b'+'))
                && matches!(self.s[self.at - 1], b'e' | b'E'))
        {
            self.at += 1;
        }
        let text = &self.text[start..self.at];
        // An integer too wide for a double's 53 bits but within 64 is kept exact as an int64
        // (the shell would round it; shardtop prints hashed bounds, such as
        // -3074457345618258602, as plain digits, and a pasted bound must mean that bound).
        if let Ok(i) = text.parse::<i64>()
            && i.unsigned_abs() > 1 << 53
        {
            return Ok(Bson::Int64(i));
        }
        let n: f64 = text
            .parse()
            .map_err(|_| self.err(&format!("{text:?} is not a number")))?;
        Ok(js_number(n))
    }

    /// A run of identifier characters (`_id`, `$gt`, `ObjectId`).
    fn word(&mut self) -> &str {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| is_word(b) || b.is_ascii_digit())
        {
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    fn word_value(&mut self) -> Result<Bson, String> {
        let start = self.at;
        let mut word = self.word().to_string();
        if word == "new" {
            self.space();
            word = self.word().to_string();
        }
        let v = match word.as_str() {
            "true" => Bson::Boolean(true),
            "false" => Bson::Boolean(false),
            "null" => Bson::Null,
            "undefined" => Bson::Undefined,
            "Infinity" => Bson::Double(f64::INFINITY),
            "NaN" => Bson::Double(f64::NAN),
            "MinKey" => self.optional_call(Bson::MinKey)?,
            "MaxKey" => self.optional_call(Bson::MaxKey)?,
            "ObjectId" => {
                let hex = self.string_argument()?;
                Bson::ObjectId(
                    bson::oid::ObjectId::parse_str(&hex)
                        .map_err(|_| self.err("ObjectId takes 24 hex digits"))?,
                )
            }
            "ISODate" | "Date" => {
                let arg = self.argument()?;
                let ms = match arg {
                    Bson::String(s) => iso_millis(&s).ok_or_else(|| {
                        self.err(&format!(
                            "{s:?} is not an ISO-8601 date (2026-01-01T00:00:00Z)"
                        ))
                    })?,
                    Bson::Int32(n) => i64::from(n),
                    Bson::Double(n) if n.is_finite() && n.fract() == 0.0 => n as i64,
                    _ => return Err(self.err("a date takes an ISO-8601 string or milliseconds")),
                };
                Bson::DateTime(bson::DateTime::from_millis(ms))
            }
            "NumberLong" | "Long" => Bson::Int64(self.integer_argument()?),
            "NumberInt" | "Int32" => {
                let n = self.integer_argument()?;
                Bson::Int32(i32::try_from(n).map_err(|_| self.err("NumberInt out of range"))?)
            }
            _ => {
                self.at = start;
                return Err(self.err(&format!("unknown word {word:?}")));
            }
        };
        Ok(v)
    }

    fn optional_call(&mut self, v: Bson) -> Result<Bson, String> {
        if self.eat(b'(') {
            self.expect(b')')?;
        }
        Ok(v)
    }

    fn argument(&mut self) -> Result<Bson, String> {
        self.expect(b'(')?;
        let v = self.value()?;
        self.expect(b')')?;
        Ok(v)
    }

    fn string_argument(&mut self) -> Result<String, String> {
        match self.argument()? {
            Bson::String(s) => Ok(s),
            _ => Err(self.err("expected a quoted string")),
        }
    }

    /// `NumberLong(5)`, `NumberLong("9007199254740993")` (a string keeps every digit).
    fn integer_argument(&mut self) -> Result<i64, String> {
        match self.argument()? {
            Bson::String(s) => s
                .trim()
                .parse()
                .map_err(|_| self.err(&format!("{s:?} is not a 64-bit integer"))),
            Bson::Int32(n) => Ok(i64::from(n)),
            Bson::Double(n) if n.fract() == 0.0 && n.abs() < 9.2e18 => Ok(n as i64),
            _ => Err(self.err("expected an integer")),
        }
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

/// A JavaScript number as the shell sends it: an int32 when integral and in range, else a double.
fn js_number(n: f64) -> Bson {
    if n.fract() == 0.0 && n >= f64::from(i32::MIN) && n <= f64::from(i32::MAX) {
        Bson::Int32(n as i32)
    } else {
        Bson::Double(n)
    }
}

/// Extended JSON wrappers inside a value read as their BSON types (as `Bson::try_from` reads
/// JSON); other documents are kept, field by field.
fn extended(v: Bson) -> Bson {
    match v {
        Bson::Document(d) => {
            let is_wrapper = d.len() <= 2 && d.keys().next().is_some_and(|k| k.starts_with('$'));
            let d: Document = d.into_iter().map(|(k, v)| (k, extended(v))).collect();
            if is_wrapper {
                let json = Bson::Document(d.clone()).into_relaxed_extjson();
                // Only the types `mongosh_text` prints in its own notation; any other wrapper
                // (`$numberDecimal`, `$binary`, …) stays the document it is.
                if let Ok(
                    b @ (Bson::ObjectId(_)
                    | Bson::DateTime(_)
                    | Bson::Int32(_)
                    | Bson::Int64(_)
                    | Bson::Double(_)
                    | Bson::MinKey
                    | Bson::MaxKey),
                ) = Bson::try_from(json)
                {
                    return b;
                }
            }
            Bson::Document(d)
        }
        Bson::Array(a) => Bson::Array(a.into_iter().map(extended).collect()),
        other => other,
    }
}

/// Milliseconds since the epoch of an ISO-8601 date as mongosh's `ISODate` takes it:
/// `YYYY-MM-DD`, then optionally `THH:MM`, `:SS`, `.fff`, and `Z` or `±HH:MM` (UTC without one).
pub fn iso_millis(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = match s.find(['T', ' ']) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    let (neg, date) = match date.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, date.strip_prefix('+').unwrap_or(date)),
    };
    let mut parts = date.split('-');
    let mut y: i64 = parts.next()?.parse().ok()?;
    if neg {
        y = -y;
    }
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(1..=12).contains(&m) || !(1..=days_in(y, m)).contains(&d) {
        return None;
    }
    let (clock, offset_min) = split_zone(time)?;
    let mut ms = 0i64;
    if !clock.is_empty() {
        let mut c = clock.split(':');
        let h: i64 = c.next()?.parse().ok()?;
        let min: i64 = c.next()?.parse().ok()?;
        let sec = c.next().unwrap_or("0");
        if c.next().is_some() || h > 23 || min > 59 {
            return None;
        }
        let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
        let whole: i64 = whole.parse().ok()?;
        if whole > 59 || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let milli: i64 = format!("{frac:0<3}")[..3].parse().ok()?;
        ms = ((h * 60 + min) * 60 + whole) * 1000 + milli;
    }
    let day_ms = days_from_civil(y, m, d).checked_mul(86_400_000)?;
    day_ms.checked_add(ms)?.checked_sub(offset_min * 60_000)
}

/// The time of day and the zone's offset in minutes (`Z`, none: 0).
fn split_zone(time: &str) -> Option<(&str, i64)> {
    if let Some(clock) = time.strip_suffix('Z') {
        return Some((clock, 0));
    }
    match time.rfind(['+', '-']) {
        Some(i) => {
            let (h, m) = time[i + 1..]
                .split_once(':')
                .unwrap_or((&time[i + 1..], "0"));
            let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
            let sign = if time.as_bytes()[i] == b'-' { -1 } else { 1 };
            Some((&time[..i], sign * (h * 60 + m)))
        }
        None => Some((time, 0)),
    }
}

fn days_in(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`, the
/// inverse of `units::civil_from_days`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
