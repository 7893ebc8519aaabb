//! Instance paths: `topology_template/node_templates/web/requirements/0`.

/// A path inside the validated document, built while descending.
#[derive(Debug, Clone, Default)]
pub struct InstancePath {
    segments: Vec<String>,
}

impl InstancePath {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, segment: impl Into<String>) {
        self.segments.push(segment.into());
    }

    pub fn pop(&mut self) {
        self.segments.pop();
    }

    pub fn segments(&self) -> &[String] {
        &self.segments
    }

    /// Slash-separated, JSON-Pointer escaped, no leading slash; root is `""`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                out.push('/');
            }
            out.push_str(&escape_segment(s));
        }
        out
    }

    /// The rendered path with one more segment.
    pub fn render_with(&self, last: &str) -> String {
        let base = self.render();
        if base.is_empty() && self.segments.is_empty() {
            escape_segment(last)
        } else {
            format!("{base}/{}", escape_segment(last))
        }
    }
}

/// JSON Pointer escaping of one path segment (`~` → `~0`, `/` → `~1`).
pub fn escape_segment(s: &str) -> String {
    if s.contains(['~', '/']) {
        s.replace('~', "~0").replace('/', "~1")
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_escapes() {
        let mut p = InstancePath::new();
        assert_eq!(p.render(), "");
        assert_eq!(p.render_with("a"), "a");
        p.push("imports");
        p.push("0");
        p.push("a/b~c");
        assert_eq!(p.render(), "imports/0/a~1b~0c");
    }
}
