//! The JSON of the one `call_json` asked every ply (`uci_move`): its
//! argument `{"move":ID}` and its answer, a JSON string, written and read by
//! hand where they are plain, through serde_json otherwise. The host asks a
//! move's engine coordinates this way once a ply.

/// The argument of a call about one move: `{"move": id}`.
#[derive(serde::Deserialize)]
struct MoveArg {
    #[serde(rename = "move")]
    id: u64,
}

/// `{"move":ID}`, written on the stack.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub(crate) struct MoveArgs {
    /// The prefix (8 bytes), up to 20 digits, the brace.
    bytes: [u8; 32],
    len: usize,
}

#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
impl MoveArgs {
    const PREFIX: &'static [u8] = b"{\"move\":";

    /// The argument naming move `id`.
    pub(crate) fn new(id: u64) -> MoveArgs {
        let mut digits = [0u8; 20];
        let (mut n, mut i) = (id, digits.len());
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let mut bytes = [0u8; 32];
        let p = Self::PREFIX.len();
        let d = digits.len() - i;
        bytes[..p].copy_from_slice(Self::PREFIX);
        bytes[p..p + d].copy_from_slice(&digits[i..]);
        bytes[p + d] = b'}';
        MoveArgs { bytes, len: p + d + 1 }
    }

    /// The JSON text.
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).expect("ASCII")
    }
}

/// The move id of a `{"move": id}` argument, if it is one.
pub(crate) fn read_move_args(json: &str) -> Option<u64> {
    let plain = json.strip_prefix("{\"move\":").and_then(|r| r.strip_suffix('}'));
    match plain {
        Some(digits) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse().ok(),
        _ => serde_json::from_str::<MoveArg>(json).ok().map(|a| a.id),
    }
}

/// Whether `text` goes between JSON quotes as it is (no quote, backslash
/// or control character).
fn plain(text: &str) -> bool {
    text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// `text` as a JSON string.
pub(crate) fn string_json(text: &str) -> String {
    if !plain(text) {
        return serde_json::Value::from(text).to_string();
    }
    let mut json = String::with_capacity(text.len() + 2);
    json.push('"');
    json.push_str(text);
    json.push('"');
    json
}

/// The string a JSON text holds, if it holds one.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub(crate) fn read_string_json(json: &str) -> Option<String> {
    match json.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) if plain(inner) => Some(inner.to_string()),
        _ => serde_json::from_str(json).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::{read_move_args, read_string_json, string_json, MoveArgs};

    #[test]
    fn a_move_argument_reads_back_and_reads_as_serde_json_writes_it() {
        for id in [0, 7, 10, 4242, u32::MAX as u64, u64::MAX] {
            let args = MoveArgs::new(id);
            assert_eq!(args.as_str(), serde_json::json!({ "move": id }).to_string());
            assert_eq!(read_move_args(args.as_str()), Some(id));
        }
        assert_eq!(read_move_args("{ \"move\" : 12 }"), Some(12), "any JSON spelling");
        assert_eq!(read_move_args("{\"move\":}"), None);
        assert_eq!(read_move_args("{\"move\":-1}"), None);
        assert_eq!(read_move_args("{\"move\":99999999999999999999}"), None, "beyond u64");
        assert_eq!(read_move_args("{\"mv\":1}"), None);
    }

    #[test]
    fn answers_are_the_json_strings_serde_json_writes_and_reads() {
        for text in ["e2e4", "P@e4", "a10a9", "", "é", "say \"hi\"", "back\\slash", "tab\there", "\u{1}"] {
            let json = string_json(text);
            assert_eq!(json, serde_json::Value::from(text).to_string(), "{text:?}");
            assert_eq!(read_string_json(&json).as_deref(), Some(text));
        }
        assert_eq!(read_string_json("\"a\\nb\""), Some("a\nb".into()));
        assert_eq!(read_string_json("\"a\u{1}b\""), None, "a raw control character is not JSON");
        assert_eq!(read_string_json("12"), None);
        assert_eq!(read_string_json("\""), None);
    }
}
