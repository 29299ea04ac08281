//! Rust identifiers from Smithy names.

/// Rust keywords that need a raw identifier (`r#type`).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "trait",
    "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "gen", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers.
const NON_RAW: &[&str] = &["self", "Self", "super", "crate"];

/// Splits `SSEDescription`, `tableName`, `KMS_KEY_ID` or `us-east-1` into lowercase words.
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if c.is_ascii_uppercase() => {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit() && !cur.is_empty()
                    || p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase())
            }
            _ => false,
        };
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `TableName` → `table_name`, with keywords made raw (`r#type`).
pub fn field_name(name: &str) -> String {
    let mut snake = words(name).join("_");
    if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        snake.insert(0, '_');
    }
    if NON_RAW.contains(&snake.as_str()) {
        snake.push('_');
    } else if KEYWORDS.contains(&snake.as_str()) {
        snake.insert_str(0, "r#");
    }
    snake
}

/// `HASH` → `Hash`, `us-east-1` → `UsEast1`, `2xx` → `V2xx`.
pub fn variant_name(name: &str) -> String {
    let mut out: String = words(name)
        .iter()
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if NON_RAW.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// A Rust type name for a shape name (shape names are already PascalCase identifiers).
pub fn type_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    if NON_RAW.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// `TableName` → `TABLE_NAME`.
pub fn const_name(name: &str) -> String {
    let upper = words(name).join("_").to_ascii_uppercase();
    if upper.is_empty() || upper.starts_with(|c: char| c.is_ascii_digit()) {
        format!("S_{upper}")
    } else {
        upper
    }
}

/// `TableName` → `tableName`: how AWS's validation messages name a member.
pub fn lower_camel(name: &str) -> String {
    let mut cs = name.chars();
    match cs.next() {
        Some(f) => f.to_ascii_lowercase().to_string() + cs.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_acronyms_and_digits() {
        assert_eq!(field_name("SSEDescription"), "sse_description");
        assert_eq!(field_name("TableName"), "table_name");
        assert_eq!(field_name("KMSMasterKeyId"), "kms_master_key_id");
        assert_eq!(field_name("Type"), "r#type");
        assert_eq!(field_name("Self"), "self_");
        assert_eq!(field_name("S3Key"), "s3_key");
        assert_eq!(field_name("ContentMD5"), "content_md5");
        assert_eq!(variant_name("HASH"), "Hash");
        assert_eq!(variant_name("us-east-1"), "UsEast1");
        assert_eq!(variant_name("AES256"), "Aes256");
        assert_eq!(variant_name("2xx"), "V2xx");
        assert_eq!(const_name("TableName"), "TABLE_NAME");
        assert_eq!(lower_camel("TableName"), "tableName");
    }
}
