//! Reads Smithy IDL (2.0, and the 1.0 subset the protocol compliance models use) into the
//! same JSON AST that AWS publishes, so [`crate::model::Model::load_idl`] builds the same
//! in-memory model as [`crate::model::Model::load_json`] does.
//!
//! - [`lexer`] splits text into tokens (text blocks and escapes handled there);
//! - [`parser`] turns one file's tokens into statements, removing per-file sugar (doc
//!   comments, inline operation input/output);
//! - [`resolve`] resolves shape ids across all files of a model set, applies `apply`
//!   statements, flattens mixins and elided members, and writes the JSON AST.
//!
//! ```no_run
//! # fn main() -> Result<(), stratus_codegen::Error> {
//! let files = vec![std::path::PathBuf::from("model/main.smithy")];
//! let ast = stratus_codegen::idl::to_json_ast(&files)?;
//! assert!(ast["shapes"].is_object());
//! # Ok(())
//! # }
//! ```

mod lexer;
mod parser;
mod resolve;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Error;

/// A line and column (both from 1) in an IDL file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: usize,
    pub column: usize,
}

/// A lexing or parsing failure inside one file.
#[derive(Debug)]
pub(crate) struct Failure {
    pub pos: Pos,
    pub message: String,
}

/// Models from Smithy's own libraries that model sets import without defining, by namespace.
const BUNDLED: &[(&str, &str)] = &[("smithy.framework", include_str!("smithy-framework.smithy"))];

/// Parses and resolves the IDL files of one model set into a flattened JSON AST
/// (`{"smithy": "2.0", "metadata": {...}, "shapes": {...}}`).
///
/// Shapes of a bundled library (`smithy.framework#ValidationException`) are added when the
/// set refers to them. A reference to a shape no file defines is refused, naming the shape
/// that refers to it.
pub fn to_json_ast(paths: &[PathBuf]) -> Result<Value, Error> {
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        files.push((path.clone(), parse_file(path, &text)?));
    }
    let mut ast = resolve::resolve(&files)?;
    let missing: BTreeSet<&str> = undefined_references(&ast)
        .iter()
        .filter_map(|(_, id)| BUNDLED.iter().find(|(ns, _)| id.starts_with(&format!("{ns}#"))))
        .map(|(ns, _)| *ns)
        .collect();
    if !missing.is_empty() {
        for (namespace, text) in BUNDLED.iter().filter(|(ns, _)| missing.contains(ns)) {
            let path = PathBuf::from(format!("<bundled {namespace}>"));
            files.push((path.clone(), parse_file(&path, text)?));
        }
        ast = resolve::resolve(&files)?;
    }
    if let Some((referrer, id)) = undefined_references(&ast).into_iter().next() {
        return Err(Error::unsupported(
            &referrer,
            format!("refers to {id}, which no file of the model set defines"),
        ));
    }
    Ok(ast)
}

fn parse_file(path: &Path, text: &str) -> Result<parser::Ast, Error> {
    let located = |f: Failure| Error::Idl {
        file: path.to_path_buf(),
        line: f.pos.line,
        column: f.pos.column,
        message: f.message,
    };
    let tokens = lexer::lex(text).map_err(located)?;
    parser::parse(&tokens).map_err(located)
}

/// (referring shape, target) for every member target and shape reference (`{"target": id}`)
/// that names neither a shape of the AST nor a prelude shape.
fn undefined_references(ast: &Value) -> Vec<(String, String)> {
    fn walk(node: &Value, found: &mut Vec<String>) {
        match node {
            Value::Object(obj) => {
                if let Some(Value::String(target)) = obj.get("target") {
                    found.push(target.clone());
                }
                obj.iter()
                    .filter(|(k, _)| *k != "traits")
                    .for_each(|(_, v)| walk(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    let mut missing = Vec::new();
    for (id, shape) in ast["shapes"].as_object().into_iter().flatten() {
        let mut targets = Vec::new();
        walk(shape, &mut targets);
        let target_shape = |t: &str| t.split('$').next().unwrap_or(t).to_string();
        missing.extend(
            targets
                .into_iter()
                .map(|t| target_shape(&t))
                .filter(|t| !resolve::is_prelude(t) && ast["shapes"].get(t).is_none())
                .map(|t| (id.clone(), t)),
        );
    }
    missing
}
