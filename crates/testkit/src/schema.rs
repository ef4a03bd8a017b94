//! A JSON Schema (draft 2020-12) validator for the keywords the
//! repository's schemas use (`schemas/*.schema.json`), for the tests that
//! check our JSON outputs against them. It replaced the `jsonschema` crate,
//! whose 27 crates took 79 s of the test command's cold build (cargo
//! `--timings`, idle 2-core machine; `jsonschema` itself 55 s, the last
//! crate to finish; issue 22). A keyword it does not know makes
//! [`Schema::new`] fail, so a schema can never be checked less than it
//! says.
//!
//! Known: the annotations (`$schema`, `$id`, `title`, `description`),
//! `$defs` with local `$ref`s (`#/$defs/NAME`), `type` (one or a list),
//! `enum`, `const`, `properties`, `required`, `additionalProperties`
//! (`false` or a schema), `dependentRequired`, `items` (one schema),
//! `oneOf`, `minimum`, `minLength` and `pattern` (the `regex` crate's
//! syntax, unanchored as the standard says).

use regex::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A schema whose keywords were all checked, with its patterns compiled.
pub struct Schema {
    root: Value,
    patterns: HashMap<String, Regex>,
}

const KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "title",
    "description",
    "$defs",
    "$ref",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "dependentRequired",
    "items",
    "oneOf",
    "minimum",
    "minLength",
    "pattern",
];

impl Schema {
    /// Check every keyword of `root` (and of its sub-schemas) is known,
    /// every `$ref` resolves and every pattern compiles.
    pub fn new(root: Value) -> Result<Schema, String> {
        let mut patterns = HashMap::new();
        check(&root, &root, "#", &mut patterns)?;
        Ok(Schema { root, patterns })
    }

    /// Every way `doc` breaks the schema, each with its JSON pointer.
    pub fn errors(&self, doc: &Value) -> Vec<String> {
        let mut out = Vec::new();
        self.validate(&self.root, doc, "", &mut out);
        out
    }

    fn validate(&self, s: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
        let Some(s) = s.as_object() else {
            if s == &Value::Bool(false) {
                out.push(format!("{at}: not allowed here"));
            }
            return;
        };
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let target = resolve(&self.root, r).expect("checked by Schema::new");
            self.validate(target, v, at, out);
        }
        if let Some(t) = s.get("type") {
            let ok = match t {
                Value::Array(ts) => ts.iter().any(|t| has_type(v, t.as_str().unwrap_or(""))),
                t => has_type(v, t.as_str().unwrap_or("")),
            };
            if !ok {
                out.push(format!("{at}: {v} is not of type {t}"));
            }
        }
        if let Some(Value::Array(options)) = s.get("enum") {
            if !options.contains(v) {
                out.push(format!("{at}: {v} is not one of {options:?}"));
            }
        }
        if let Some(c) = s.get("const") {
            if c != v {
                out.push(format!("{at}: {v} is not {c}"));
            }
        }
        self.validate_scalar(s, v, at, out);
        if let Value::Object(o) = v {
            self.validate_object(s, o, at, out);
        }
        if let (Some(item), Value::Array(a)) = (s.get("items"), v) {
            for (i, x) in a.iter().enumerate() {
                self.validate(item, x, &format!("{at}/{i}"), out);
            }
        }
        if let Some(Value::Array(options)) = s.get("oneOf") {
            let passing = options.iter().filter(|o| self.passes(o, v, at)).count();
            if passing != 1 {
                out.push(format!(
                    "{at}: {passing} of oneOf's {} schemas match",
                    options.len()
                ));
            }
        }
    }

    fn passes(&self, s: &Value, v: &Value, at: &str) -> bool {
        let mut errors = Vec::new();
        self.validate(s, v, at, &mut errors);
        errors.is_empty()
    }

    fn validate_scalar(&self, s: &Map<String, Value>, v: &Value, at: &str, out: &mut Vec<String>) {
        if let (Some(min), Some(x)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64()) {
            if x < min {
                out.push(format!("{at}: {x} is less than the minimum {min}"));
            }
        }
        let Value::String(text) = v else { return };
        if let Some(n) = s.get("minLength").and_then(Value::as_u64) {
            if (text.chars().count() as u64) < n {
                out.push(format!("{at}: {text:?} is shorter than {n}"));
            }
        }
        if let Some(p) = s.get("pattern").and_then(Value::as_str) {
            if !self.patterns[p].is_match(text) {
                out.push(format!("{at}: {text:?} does not match {p:?}"));
            }
        }
    }

    fn validate_object(
        &self,
        s: &Map<String, Value>,
        o: &Map<String, Value>,
        at: &str,
        out: &mut Vec<String>,
    ) {
        let props = s.get("properties").and_then(Value::as_object);
        for (k, x) in o {
            let here = format!("{at}/{k}");
            match (props.and_then(|p| p.get(k)), s.get("additionalProperties")) {
                (Some(sub), _) => self.validate(sub, x, &here, out),
                (None, Some(extra)) => self.validate(extra, x, &here, out),
                (None, None) => {}
            }
        }
        let required = s.get("required").and_then(Value::as_array);
        for k in required.into_iter().flatten().filter_map(Value::as_str) {
            if !o.contains_key(k) {
                out.push(format!("{at}: required property {k:?} is missing"));
            }
        }
        let dependent = s.get("dependentRequired").and_then(Value::as_object);
        for (k, needs) in dependent.into_iter().flatten() {
            if !o.contains_key(k) {
                continue;
            }
            for n in needs
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !o.contains_key(n) {
                    out.push(format!("{at}: {k:?} is present, so {n:?} is required"));
                }
            }
        }
    }
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        // 2020-12: any number with a zero fractional part.
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|x| x.fract() == 0.0),
        _ => false,
    }
}

/// A local reference `#/$defs/NAME` (the only form the schemas use).
fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let name = r.strip_prefix("#/$defs/")?;
    root.get("$defs")?.get(name)
}

/// Walk a schema: known keywords only, references that resolve, patterns
/// that compile, well-formed values where validation relies on them.
fn check(
    s: &Value,
    root: &Value,
    at: &str,
    patterns: &mut HashMap<String, Regex>,
) -> Result<(), String> {
    let o = match s {
        Value::Bool(_) => return Ok(()),
        Value::Object(o) => o,
        _ => return Err(format!("{at}: a schema must be an object or a boolean")),
    };
    for (k, v) in o {
        let here = format!("{at}/{k}");
        if !KEYWORDS.contains(&k.as_str()) {
            return Err(format!(
                "{here}: keyword not supported by pario_testkit::schema"
            ));
        }
        match k.as_str() {
            "$ref" => {
                let r = v.as_str().unwrap_or("");
                resolve(root, r).ok_or_else(|| format!("{here}: cannot resolve {r:?}"))?;
            }
            "pattern" => {
                let p = v.as_str().ok_or_else(|| format!("{here}: not a string"))?;
                let re = Regex::new(p).map_err(|e| format!("{here}: {e}"))?;
                patterns.insert(p.to_string(), re);
            }
            "properties" | "$defs" => {
                let subs = v
                    .as_object()
                    .ok_or_else(|| format!("{here}: not an object"))?;
                for (name, sub) in subs {
                    check(sub, root, &format!("{here}/{name}"), patterns)?;
                }
            }
            "items" | "additionalProperties" => check(v, root, &here, patterns)?,
            "oneOf" => {
                let subs = v
                    .as_array()
                    .ok_or_else(|| format!("{here}: not an array"))?;
                for (i, sub) in subs.iter().enumerate() {
                    check(sub, root, &format!("{here}/{i}"), patterns)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, doc: Value) -> Vec<String> {
        Schema::new(schema).unwrap().errors(&doc)
    }

    #[test]
    fn unknown_keywords_bad_refs_and_bad_patterns_are_refused() {
        let e = |s: Value| Schema::new(s).err().unwrap();
        assert!(e(json!({"maximum": 3})).contains("/maximum: keyword not supported"));
        assert!(e(json!({"properties": {"a": {"allOf": []}}})).contains("#/properties/a/allOf"));
        assert!(e(json!({"$ref": "#/$defs/nope"})).contains("cannot resolve"));
        assert!(e(json!({"pattern": "("})).contains("/pattern"));
    }

    #[test]
    fn each_keyword_accepts_and_rejects() {
        let s = json!({
            "type": "object",
            "required": ["a", "n"],
            "additionalProperties": false,
            "dependentRequired": {"x": ["y"]},
            "properties": {
                "a": {"type": "string", "pattern": " Mi$", "minLength": 4},
                "n": {"type": ["integer", "null"], "minimum": 1},
                "e": {"enum": ["p", "q"]},
                "c": {"const": "remove"},
                "l": {"type": "array", "items": {"$ref": "#/$defs/flag"}},
                "x": {}, "y": {},
                "o": {"oneOf": [{"type": "integer"}, {"type": "number"}]}
            },
            "$defs": {"flag": {"type": "integer", "minimum": 0}}
        });
        let ok = json!({"a": "12 Mi", "n": 2.0, "e": "p", "c": "remove", "l": [0, 1], "x": 1, "y": 2, "o": 1.5});
        assert_eq!(errors(s.clone(), ok), Vec::<String>::new());
        assert_eq!(
            errors(s.clone(), json!({"a": " Mi", "n": null})).len(),
            1,
            "minLength"
        );
        let bad = json!({"a": "12 Gi", "n": 0.5, "e": "z", "c": "read", "l": [-1], "x": 1, "z": 0, "o": 1});
        let got = errors(s, bad);
        for want in [
            "/a: \"12 Gi\" does not match",
            "/n: 0.5 is not of type",
            "/n: 0.5 is less than the minimum 1",
            "/e: \"z\" is not one of",
            "/c: \"read\" is not \"remove\"",
            "/l/0: -1 is less than the minimum 0",
            "/z: not allowed here",
            ": \"x\" is present, so \"y\" is required",
            "/o: 2 of oneOf's 2 schemas match",
        ] {
            assert!(
                got.iter().any(|g| g.contains(want)),
                "{want:?} not in {got:#?}"
            );
        }
        assert_eq!(got.len(), 9, "{got:#?}");
    }

    #[test]
    fn the_repository_schemas_load() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            Schema::new(serde_json::from_str(&text).unwrap()).unwrap();
            n += 1;
        }
        assert!(n > 0);
    }
}
