/**
 * A self-signed certificate for 127.0.0.1 (valid from 2000 to 2126, so no test machine's clock falls
 * outside it) and its key, for tests of TLS receivers only: the key protects nothing. Made once with
 * `openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1` and `openssl ca -selfsign -startdate
 * 20000101000000Z -enddate 21260101000000Z` (basicConstraints CA:TRUE, subjectAltName IP:127.0.0.1).
 */
export const TEST_TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgpMEyIQTliocpxU6A
PoWP7yynsX5Xcb1INwb5AMB9vb6hRANCAAR84GKmpfDf4WkUJfehCUzo0CDRYPHm
FHdXhDijAEMoeX4k0FM+lYngAAa8q3aNNkLAQNU1c/8UObmFdErbKmiC
-----END PRIVATE KEY-----
`;

export const TEST_TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBXDCCAQKgAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAkxMjcuMC4w
LjEwIBcNMDAwMTAxMDAwMDAwWhgPMjEyNjAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM
CTEyNy4wLjAuMTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABHzgYqal8N/haRQl
96EJTOjQINFg8eYUd1eEOKMAQyh5fiTQUz6VieAABryrdo02QsBA1TVz/xQ5uYV0
StsqaIKjQzBBMA8GA1UdEwEB/wQFMAMBAf8wDwYDVR0RBAgwBocEfwAAATAdBgNV
HQ4EFgQUswUDqRmqtn0e+gGJ+WGBrFxhgpEwCgYIKoZIzj0EAwIDSAAwRQIhAIBQ
Ot3+cJUhmb2yjmJkKQzq1sSXce58q9kadF/i6hvwAiBB9DQs7xqkASRwSL3bwZ5S
Fo/3xNshUZpSBMeQqVejVw==
-----END CERTIFICATE-----
`;
