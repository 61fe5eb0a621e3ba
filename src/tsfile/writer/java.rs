//! Java's iteration order of a `java.util.HashMap<String, _>`, which decides the order of
//! the table schemas in a Java-written footer (`Schema.tableSchemaMap`) — see
//! [`Profile::Java`](super::Profile::Java) and `spec/tsfile.md` §11 item 1.

/// Java's `String.hashCode`: `h = 31·h + unit` over the UTF-16 code units, wrapping.
pub(crate) fn string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)))
}

/// The order in which a `HashMap` created with the default constructor iterates `keys`
/// (distinct, inserted in this order, none removed): buckets ascending, insertion order
/// within a bucket. The table starts at 16 buckets and doubles once it holds more than 3/4
/// of its size, or when a bucket would reach 9 entries while the table is below 64 buckets
/// (Java resizes instead of making a tree bin). Tree bins themselves (≥ 9 colliding keys in
/// a table of ≥ 64 buckets) are not reproduced: their entries keep insertion order.
/// Returns indexes into `keys`.
pub(crate) fn hash_map_order(keys: &[&str]) -> Vec<usize> {
    // `HashMap.hash`: the high half folded into the low half.
    let hashes: Vec<u32> = keys
        .iter()
        .map(|k| {
            let h = string_hash(k) as u32;
            h ^ (h >> 16)
        })
        .collect();
    let mut cap: u32 = 16;
    for (i, &h) in hashes.iter().enumerate() {
        let in_bucket = (hashes.iter().take(i))
            .filter(|&&o| o & (cap - 1) == h & (cap - 1))
            .count();
        if in_bucket >= 8 && cap < 64 {
            cap *= 2;
        }
        if (i + 1) as u64 * 4 > u64::from(cap) * 3 {
            cap = cap.saturating_mul(2);
        }
    }
    // (bucket, insertion index) is unique per key, so the order is fully determined.
    let mut keyed: Vec<(u32, usize)> = (hashes.iter().enumerate())
        .map(|(i, &h)| (h & (cap - 1), i))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_codes() {
        // Values of `String.hashCode()` (31-polynomial over UTF-16 units).
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("k"), 107);
        assert_eq!(string_hash("tab"), 0x1bf95);
        assert_eq!(string_hash("encryptLevel") as u32, 0x8ab4_301f);
        // A supplementary character counts as its two surrogates.
        assert_eq!(
            string_hash("\u{10000}"),
            0xd800i32.wrapping_mul(31) + 0xdc00
        );
    }

    #[test]
    fn default_properties_iterate_as_spec_says() {
        // §11 item 1: buckets 11, 12, 14 whatever the insertion order.
        let keys = ["encryptLevel", "encryptType", "encryptKey"];
        let order: Vec<&str> = hash_map_order(&keys).iter().map(|&i| keys[i]).collect();
        assert_eq!(order, ["encryptLevel", "encryptKey", "encryptType"]);
    }

    #[test]
    fn tables_by_bucket_then_insertion() {
        // "tab1" → bucket 10, "weather" → 8, "t1" → 13, "tab" → 4 (16 buckets).
        let keys = ["tab1", "weather", "t1", "tab"];
        let order: Vec<&str> = hash_map_order(&keys).iter().map(|&i| keys[i]).collect();
        assert_eq!(order, ["tab", "weather", "tab1", "t1"]);
    }

    #[test]
    fn the_table_grows_as_java_s_does() {
        // One-letter keys hash to their code: "q" (113) and "a" (97) share bucket 1 of 16
        // but not of 32 (113 & 31 = 17). Twelve keys stay in 16 buckets, a 13th doubles them.
        let mut keys = vec!["q", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"];
        let order = |keys: &[&str]| -> Vec<String> {
            hash_map_order(keys)
                .iter()
                .map(|&i| keys[i].to_owned())
                .collect()
        };
        assert_eq!(order(&keys).concat(), "qabcdefghijk");
        keys.push("l");
        assert_eq!(order(&keys).concat(), "abcdefghijklq");
        // Nine keys in one bucket of a table below 64: Java resizes instead of treeifying.
        let bucket1 = ["\u{1}", "\u{11}", "!", "1", "A", "Q", "a", "q"];
        assert_eq!(order(&bucket1).concat(), bucket1.concat());
        let mut nine = bucket1.to_vec();
        nine.push("\u{81}");
        assert_eq!(order(&nine).concat(), "\u{1}!Aa\u{81}\u{11}1Qq");
    }
}
