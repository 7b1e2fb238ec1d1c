//! Credentials out of any text shardtop prints: a URI's password masked whatever the URI's
//! shape, and a URI's hosts without its user, password or options. May not touch: the network
//! (pure text).

/// Any text with its credentials masked, whatever shape the URI in it has:
/// `mongodb://user:secret@host/…` → `mongodb://user:***@host/…`, the same without a scheme
/// (`user:secret@host`), and the URI options that carry a secret (`authMechanismProperties`'s
/// AWS session token, `tlsCertificateKeyFilePassword`, a `password=` some tools write) →
/// `option=***`. Masks more rather than less: any word with `:` before an `@`.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | ')' | '<' | '>') {
            out.push_str(&redact_word(&word));
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.push_str(&redact_word(&word));
    out
}

/// The options whose value is a secret (the driver's names, compared without case).
const SECRET_OPTIONS: [&str; 4] = [
    "password",
    "tlscertificatekeyfilepassword",
    "sslpemkeypassword",
    "authmechanismproperties",
];

fn redact_word(word: &str) -> String {
    // `sim:NAME@TIME` is a scenario at a time, not a user and a password.
    if word.starts_with("sim:") {
        return word.to_string();
    }
    let start = word.find("://").map_or(0, |i| i + 3);
    let mut out = match word[start..].rfind('@') {
        Some(at) => {
            let userinfo = &word[start..start + at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &word[..start], &word[start + at..]),
                None => word.to_string(),
            }
        }
        None => word.to_string(),
    };
    for option in SECRET_OPTIONS {
        out = mask_option(&out, option);
    }
    out
}

/// `…option=value&…` → `…option=***&…` (the name without case, after `?`, `&` or `;`).
fn mask_option(word: &str, option: &str) -> String {
    let lower = word.to_ascii_lowercase();
    let key = format!("{option}=");
    let mut out = String::new();
    let mut from = 0;
    while let Some(i) = lower[from..].find(&key).map(|i| from + i) {
        let after_separator = i == 0 || matches!(word.as_bytes()[i - 1], b'?' | b'&' | b';');
        let value_start = i + key.len();
        let value_end =
            (word[value_start..].find(['&', ';'])).map_or(word.len(), |e| value_start + e);
        out.push_str(&word[from..value_start]);
        out.push_str(if after_separator {
            "***"
        } else {
            &word[value_start..value_end]
        });
        from = value_end;
    }
    out.push_str(&word[from..]);
    out
}

/// The hosts of a URI, for the summary's `source` (never the credentials or options).
pub fn hosts(uri: &str) -> String {
    let rest = uri.split_once("://").map_or(uri, |(_, r)| r);
    // After the credentials (a password may hold an unescaped `/` or `?`), before the path or
    // the options (which may come with no `/` before their `?`).
    let after_user = rest.rfind('@').map_or(rest, |i| &rest[i + 1..]);
    let hosts = &after_user[..after_user.find(['/', '?']).unwrap_or(after_user.len())];
    let scheme = uri.split_once("://").map_or("mongodb", |(s, _)| s);
    format!("{scheme}://{hosts}")
}
