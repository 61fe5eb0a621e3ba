//! Java's `Float.toString` / `Double.toString` and `Float.parseFloat` / `Double.parseDouble`
//! (placeholder: shortest digits in Java's layout; the full rules are being written).

/// Java `Float.toString`.
pub fn f32_to_string(v: f32) -> String {
    format!("{v:?}")
}
/// Java `Double.toString`.
pub fn f64_to_string(v: f64) -> String {
    format!("{v:?}")
}
/// Java `Float.parseFloat` semantics; `None` where Java throws.
pub fn parse_f32(s: &str) -> Option<f32> {
    match s.trim() {
        "NaN" => Some(f32::NAN),
        "Infinity" | "+Infinity" => Some(f32::INFINITY),
        "-Infinity" => Some(f32::NEG_INFINITY),
        t => t.parse().ok(),
    }
}
/// Java `Double.parseDouble` semantics; `None` where Java throws.
pub fn parse_f64(s: &str) -> Option<f64> {
    match s.trim() {
        "NaN" => Some(f64::NAN),
        "Infinity" | "+Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        t => t.parse().ok(),
    }
}
