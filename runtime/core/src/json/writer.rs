//! A JSON text writer with the interface and output of `aws-smithy-json`'s serializer, plus
//! [`ValueWriter::raw`] for text that is already JSON ([`Value::EncodedJson`]), which the
//! pinned version of that crate cannot write.
//!
//! [`Value::EncodedJson`]: crate::Value::EncodedJson

use aws_smithy_types::primitive::Encoder;
use aws_smithy_types::Number;

/// Where one JSON value goes.
pub struct ValueWriter<'a> {
    out: &'a mut String,
}

impl<'a> ValueWriter<'a> {
    /// A writer that appends one value to `out`.
    pub fn new(out: &'a mut String) -> Self {
        ValueWriter { out }
    }

    /// Writes `null`.
    pub fn null(self) {
        self.out.push_str("null");
    }

    /// Writes `true` or `false`.
    pub fn boolean(self, value: bool) {
        self.out.push_str(if value { "true" } else { "false" });
    }

    /// A number; non-finite floats are the strings `"NaN"`, `"Infinity"` and `"-Infinity"`.
    pub fn number(self, value: Number) {
        match value {
            Number::PosInt(n) => self.out.push_str(Encoder::from(n).encode()),
            Number::NegInt(n) => self.out.push_str(Encoder::from(n).encode()),
            Number::Float(f) => {
                let mut encoder = Encoder::from(f);
                let text = encoder.encode();
                if f.is_finite() {
                    self.out.push_str(text);
                } else {
                    self.out.push('"');
                    self.out.push_str(text);
                    self.out.push('"');
                }
            }
        }
    }

    /// Writes `value` as a JSON string (see [`write_string`]).
    pub fn string(self, value: &str) {
        write_string(self.out, value);
    }

    /// Text that is already one JSON value, copied as it is.
    pub fn raw(self, json: &str) {
        self.out.push_str(json);
    }

    /// Writes `[` and hands back the writer of the elements; `finish` closes it.
    pub fn start_array(self) -> ArrayWriter<'a> {
        self.out.push('[');
        ArrayWriter {
            out: self.out,
            started: false,
        }
    }

    /// Writes `{` and hands back the writer of the entries; `finish` closes it.
    pub fn start_object(self) -> ObjectWriter<'a> {
        self.out.push('{');
        ObjectWriter {
            out: self.out,
            started: false,
        }
    }
}

pub struct ArrayWriter<'a> {
    out: &'a mut String,
    started: bool,
}

impl ArrayWriter<'_> {
    pub fn value(&mut self) -> ValueWriter<'_> {
        if std::mem::replace(&mut self.started, true) {
            self.out.push(',');
        }
        ValueWriter { out: self.out }
    }

    pub fn finish(self) {
        self.out.push(']');
    }
}

pub struct ObjectWriter<'a> {
    out: &'a mut String,
    started: bool,
}

impl ObjectWriter<'_> {
    pub fn key(&mut self, key: &str) -> ValueWriter<'_> {
        if std::mem::replace(&mut self.started, true) {
            self.out.push(',');
        }
        write_string(self.out, key);
        self.out.push(':');
        ValueWriter { out: self.out }
    }

    pub fn finish(self) {
        self.out.push('}');
    }
}

/// Appends `text` as a JSON string: quotes, backslashes and control characters escaped
/// (`\b`, `\f`, `\n`, `\r`, `\t`, else `\u00xx`), everything else as it is.
pub fn write_string(out: &mut String, text: &str) {
    out.push('"');
    let mut plain = 0;
    for (at, byte) in text.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[plain..at]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(byte >> 4)] as char);
            out.push(HEX[usize::from(byte & 0xf)] as char);
        } else {
            out.push_str(escape);
        }
        plain = at + 1;
    }
    out.push_str(&text[plain..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use aws_smithy_json::serialize::JsonValueWriter;

    use super::*;

    /// A seeded xorshift generator: the same cases on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    const ALPHABET: &[char] = &[
        'a', ' ', '"', '\\', '/', '\u{0}', '\u{8}', '\u{c}', '\n', '\r', '\t', '\u{1f}', '\u{7f}', 'é', '✓', '😀',
    ];

    fn text(rng: &mut Rng) -> String {
        (0..rng.below(10))
            .map(|_| ALPHABET[rng.below(ALPHABET.len())])
            .collect()
    }

    fn number(rng: &mut Rng) -> Number {
        const FLOATS: &[f64] = &[
            0.0,
            -0.0,
            0.5,
            1e21,
            1e-7,
            123.456,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        match rng.below(3) {
            0 => Number::PosInt(rng.below(usize::MAX) as u64),
            1 => Number::NegInt(-(rng.below(1 << 40) as i64) - 1),
            _ => Number::Float(FLOATS[rng.below(FLOATS.len())]),
        }
    }

    /// Writes one random value (at most `depth` levels deep) with both writers.
    fn random_value(rng: &mut Rng, depth: usize, ours: ValueWriter<'_>, theirs: JsonValueWriter<'_>) {
        match rng.below(if depth == 0 { 4 } else { 6 }) {
            0 => (ours.null(), theirs.null()),
            1 => {
                let b = rng.below(2) == 1;
                (ours.boolean(b), theirs.boolean(b))
            }
            2 => {
                let n = number(rng);
                (ours.number(n), theirs.number(n))
            }
            3 => {
                let s = text(rng);
                (ours.string(&s), theirs.string(&s))
            }
            4 => {
                let (mut a, mut b) = (ours.start_array(), theirs.start_array());
                for _ in 0..rng.below(4) {
                    random_value(rng, depth - 1, a.value(), b.value());
                }
                (a.finish(), b.finish())
            }
            _ => {
                let (mut a, mut b) = (ours.start_object(), theirs.start_object());
                for _ in 0..rng.below(4) {
                    let key = text(rng);
                    random_value(rng, depth - 1, a.key(&key), b.key(&key));
                }
                (a.finish(), b.finish())
            }
        };
    }

    #[test]
    fn writes_what_aws_smithy_json_writes_for_random_documents() {
        let mut rng = Rng(0x6a73_6f6e);
        for _ in 0..5000 {
            let (mut ours, mut theirs) = (String::new(), String::new());
            random_value(
                &mut rng,
                3,
                ValueWriter::new(&mut ours),
                JsonValueWriter::new(&mut theirs),
            );
            assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn raw_text_is_copied_between_separators() {
        let mut out = String::new();
        let mut object = ValueWriter::new(&mut out).start_object();
        object.key("Items").raw(r#"[{"a":{"S":"x"}}]"#);
        object.key("Count").number(Number::PosInt(1));
        object.finish();
        assert_eq!(out, r#"{"Items":[{"a":{"S":"x"}}],"Count":1}"#);
    }
}
