//! A byte-level reader of the exact text this program writes for the most frequent parts of a
//! trace: `writes` lines and the recent-writes window of keyframes. It takes only the canonical
//! forms (no whitespace, no escapes, fields in the written order, shard-key values as MinKey,
//! MaxKey, `$numberLong`, `$numberInt`, plain strings, small integers, booleans and null) and
//! gives up (`None`) on anything else, which the serde paths then read.

use crate::cluster::{ChunkWrites, Event, EventKind};
use crate::model::{ChunkStats, KeyValue, ShardKey};
use crate::trace::json::ms_of_seconds;

/// A position in a line already known to be UTF-8.
pub(super) struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }

    fn rest(&self) -> &'a [u8] {
        &self.text.as_bytes()[self.at..]
    }

    pub fn at_end(&self) -> bool {
        self.at == self.text.len()
    }

    /// Takes `lit` if the text goes on with it.
    pub fn eat(&mut self, lit: &[u8]) -> bool {
        let hit = self.rest().starts_with(lit);
        if hit {
            self.at += lit.len();
        }
        hit
    }

    pub fn expect(&mut self, lit: &[u8]) -> Option<()> {
        self.eat(lit).then_some(())
    }

    /// Digits with an optional minus sign, as JSON writes an integer (no leading zero).
    fn integer_text(&mut self) -> Option<&'a str> {
        let rest = self.rest();
        let sign = usize::from(rest.first() == Some(&b'-'));
        let digits = rest[sign..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let leading_zero = rest.get(sign) == Some(&b'0') && (digits > 1 || sign == 1);
        if digits == 0
            || leading_zero
            || matches!(rest.get(sign + digits), Some(b'.' | b'e' | b'E'))
        {
            return None;
        }
        let text = &self.text[self.at..self.at + sign + digits];
        self.at += sign + digits;
        Some(text)
    }

    pub fn bool(&mut self) -> Option<bool> {
        if self.eat(b"true") {
            Some(true)
        } else {
            self.eat(b"false").then_some(false)
        }
    }

    pub fn u64(&mut self) -> Option<u64> {
        self.integer_text()?.parse().ok()
    }

    /// A JSON number, read by serde_json itself (so the value is the one the serde paths get).
    pub fn f64(&mut self) -> Option<f64> {
        let rest = self.rest();
        let len = rest
            .iter()
            .take_while(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        let x = serde_json::from_slice(&rest[..len]).ok()?;
        self.at += len;
        Some(x)
    }

    /// A string without escapes or control characters, after its opening quote; takes the
    /// closing one.
    pub fn plain_str(&mut self) -> Option<&'a str> {
        let len = self
            .rest()
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if self.rest()[len] != b'"' {
            return None;
        }
        let text = &self.text[self.at..self.at + len];
        self.at += len + 1;
        Some(text)
    }

    /// A shard-key document; a field name repeated is refused, as the serde path does.
    pub fn key_doc(&mut self) -> Option<ShardKey> {
        self.expect(b"{\"")?;
        let first_name = self.plain_str()?;
        self.expect(b":")?;
        let first = self.value()?;
        if self.eat(b"}") {
            return Some(ShardKey::single(first));
        }
        let (mut names, mut values) = (vec![first_name], vec![first]);
        while self.eat(b",\"") {
            let name = self.plain_str()?;
            if names.contains(&name) {
                return None;
            }
            self.expect(b":")?;
            names.push(name);
            values.push(self.value()?);
        }
        self.expect(b"}")?;
        ShardKey::from_values(values)
    }

    fn value(&mut self) -> Option<KeyValue> {
        match self.rest().first()? {
            b'"' => {
                self.at += 1;
                Some(KeyValue::String(self.plain_str()?.into()))
            }
            b'{' => self.typed_value(),
            b't' if self.eat(b"true") => Some(KeyValue::Bool(true)),
            b'f' if self.eat(b"false") => Some(KeyValue::Bool(false)),
            b'n' if self.eat(b"null") => Some(KeyValue::Null),
            _ => {
                let i: i64 = self.integer_text()?.parse().ok()?;
                Some(i32::try_from(i).map_or(KeyValue::Int64(i), KeyValue::Int32))
            }
        }
    }

    fn typed_value(&mut self) -> Option<KeyValue> {
        let value = if self.eat(b"{\"$numberLong\":\"") {
            KeyValue::Int64(self.plain_str()?.parse().ok()?)
        } else if self.eat(b"{\"$minKey\":1") {
            KeyValue::MinKey
        } else if self.eat(b"{\"$maxKey\":1") {
            KeyValue::MaxKey
        } else if self.eat(b"{\"$numberInt\":\"") {
            KeyValue::Int32(self.plain_str()?.parse().ok()?)
        } else {
            return None;
        };
        self.expect(b"}")?;
        Some(value)
    }

    /// `{"min":…,"docs":…,"bytes":…,"writes":…,"key":…}` of a `writes` line.
    pub fn chunk_writes(&mut self) -> Option<ChunkWrites> {
        self.expect(b"{\"min\":")?;
        let min = self.key_doc()?;
        self.expect(b",\"docs\":")?;
        let docs = self.u64()?;
        self.expect(b",\"bytes\":")?;
        let bytes = self.u64()?;
        self.expect(b",\"writes\":")?;
        let writes = self.u64()?;
        self.expect(b",\"key\":")?;
        let sample = self.key_doc()?;
        self.expect(b"}")?;
        Some(ChunkWrites {
            min,
            stats: ChunkStats::new(docs, bytes, writes),
            sample,
        })
    }

    /// A list of `item`s: `[a,b,…]`.
    pub fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.expect(b"[")?;
        let mut out = Vec::new();
        if self.eat(b"]") {
            return Some(out);
        }
        loop {
            out.push(item(self)?);
            if self.eat(b"]") {
                return Some(out);
            }
            self.expect(b",")?;
        }
    }
}

/// A `writes` line as this program writes it: `{"chunks":[…],"ns":…,"t":…,"what":"writes"}`.
pub fn writes_line(text: &str) -> Option<Event> {
    let mut c = Cursor::new(text);
    c.expect(b"{\"chunks\":")?;
    let chunks = c.list(Cursor::chunk_writes)?;
    c.expect(b",\"ns\":\"")?;
    let ns = c.plain_str()?.to_string();
    c.expect(b",\"t\":")?;
    let t = c.f64()?;
    c.expect(b",\"what\":\"writes\"}")?;
    c.at_end().then(|| Event {
        at_ms: ms_of_seconds(t),
        kind: EventKind::Writes { ns, chunks },
    })
}
