//! Tests of the client: passwords never leave, URI options reach the driver, errors in words.

use super::*;

#[test]
fn passwords_never_leave() {
    assert_eq!(
        redact("mongodb://ops:s3cret@db1:27017,db2/admin?tls=true"),
        "mongodb://ops:***@db1:27017,db2/admin?tls=true"
    );
    assert_eq!(
        hosts("mongodb+srv://ops:s3cret@cluster0.example.net/?x=1"),
        "mongodb+srv://cluster0.example.net"
    );
    assert_eq!(redact("mongodb://db1"), "mongodb://db1");
}

#[test]
fn passwords_are_masked_whatever_the_uri_looks_like() {
    let cases = [
        (
            "cannot reach ops:s3cret@db1:27017",
            "cannot reach ops:***@db1:27017",
        ),
        ("'mongodb://ops:s3%40cret@db1/'", "'mongodb://ops:***@db1/'"),
        ("mongodb://ops:s3cret:more@db1", "mongodb://ops:***@db1"),
        (
            "mongodb://db1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:s3cret",
            "mongodb://db1/?authMechanism=MONGODB-AWS&authMechanismProperties=***",
        ),
        (
            "mongodb://db1/?tls=true&tlsCertificateKeyFilePassword=s3cret&x=1",
            "mongodb://db1/?tls=true&tlsCertificateKeyFilePassword=***&x=1",
        ),
        (
            "mongodb://db1/?PASSWORD=s3cret",
            "mongodb://db1/?PASSWORD=***",
        ),
        (
            "two: a:s3cret@h1 and b:s3cret@h2",
            "two: a:***@h1 and b:***@h2",
        ),
        (
            "no secret here: mongodb://db1/?tls=true",
            "no secret here: mongodb://db1/?tls=true",
        ),
    ];
    for (text, masked) in cases {
        assert_eq!(redact(text), masked, "{text}");
    }
    assert_eq!(hosts("mongodb://db1:27017?tls=true"), "mongodb://db1:27017");
    assert_eq!(
        hosts("mongodb://ops:pa/s?s@db1,db2/?x=1"),
        "mongodb://db1,db2"
    );
}

proptest::proptest! {
    /// Whatever surrounds it, a password given in a URI never survives `redact`.
    #[test]
    fn a_password_never_survives(
        before in "[ -~]{0,12}",
        scheme in proptest::sample::select(vec!["mongodb://", "mongodb+srv://", ""]),
        user in "[a-z]{1,6}",
        after in "[ -~]{0,12}",
    ) {
        let secret = "Zq9secretZq9";
        let text = format!("{before} {scheme}{user}:{secret}@db1:27017/{after}");
        proptest::prop_assert!(!redact(&text).contains(secret), "{}", redact(&text));
    }
}

#[tokio::test]
async fn uri_options_reach_the_driver_as_written_and_the_password_stays() {
    let uri = "mongodb://ops:s3cret@db1:27017,db2/?tls=true&tlsCAFile=/etc/ca.pem&authMechanism=SCRAM-SHA-256&authSource=admin&replicaSet=rs0";
    let o = client_options(uri, Duration::from_secs(3))
        .await
        .expect("parses");
    let c = o.credential.expect("a credential");
    assert_eq!(c.username.as_deref(), Some("ops"));
    assert_eq!(c.source.as_deref(), Some("admin"));
    assert_eq!(
        c.mechanism,
        Some(mongodb::options::AuthMechanism::ScramSha256)
    );
    match o.tls {
        Some(mongodb::options::Tls::Enabled(t)) => {
            assert_eq!(
                t.ca_file_path.as_deref(),
                Some(std::path::Path::new("/etc/ca.pem"))
            );
        }
        other => panic!("TLS not as written: {other:?}"),
    }
    assert_eq!(o.hosts.len(), 2);
    assert_eq!(o.repl_set_name.as_deref(), Some("rs0"));
    assert_eq!(o.app_name.as_deref(), Some("shardtop"));
    let bad = "mongodb://ops:s3cret@db1/?tls=maybe";
    let e = client_options(bad, Duration::from_secs(3))
        .await
        .expect_err("refused");
    assert!(e.input && !e.message.contains("s3cret"), "{}", e.message);
    assert_eq!(
        redact("mongodb+srv://ops:s3cret@cluster0.example.net/?authSource=admin"),
        "mongodb+srv://ops:***@cluster0.example.net/?authSource=admin"
    );
}

#[test]
fn driver_errors_are_told_without_their_debug_text() {
    let selection = "No available servers. Topology: { Type: Unknown, Servers: [ { Address: \
                     127.0.0.1:1, Type: Unknown, Error: Kind: I/O error: Connection refused \
                     (os error 111), labels: {\"RetryableError\"}, source: None } ] }";
    assert_eq!(
        server_error(selection),
        "I/O error: Connection refused (os error 111)"
    );
    assert_eq!(server_error("nothing said"), "no server answered");
}
