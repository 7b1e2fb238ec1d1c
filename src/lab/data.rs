//! Temporary: replaced by the readers' branch.
use std::io::BufRead;

#[derive(Debug, Clone, PartialEq)]
pub struct InputError {
    pub file: String,
    pub line: Option<u64>,
    pub document: Option<u64>,
    pub message: String,
}
impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}
pub struct Documents {
    lines: std::io::Lines<std::io::BufReader<std::fs::File>>,
}
pub fn open(path: &std::path::Path) -> Result<Documents, InputError> {
    let f = std::fs::File::open(path).map_err(|e| InputError {
        file: path.display().to_string(),
        line: None,
        document: None,
        message: e.to_string(),
    })?;
    Ok(Documents {
        lines: std::io::BufReader::new(f).lines(),
    })
}
impl Iterator for Documents {
    type Item = Result<(bson::Document, u64), InputError>;
    fn next(&mut self) -> Option<Self::Item> {
        let line = self.lines.next()?.ok()?;
        let v: serde_json::Value = serde_json::from_str(&line).ok()?;
        let bson::Bson::Document(d) = bson::Bson::try_from(v).ok()? else {
            return None;
        };
        let n = bson::to_vec(&d).map_or(0, |v| v.len() as u64);
        Some(Ok((d, n)))
    }
}
