// The loopback server's self-signed TLS identity (CN=localhost; SAN DNS:localhost, IP:127.0.0.1, IP:::1;
// valid 100 years), generated once with:
//   openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj "/CN=localhost" \
//     -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" -addext "basicConstraints=critical,CA:TRUE" \
//     -addext "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign"
// Test-only material: the private key is public by design and must never protect anything real.

enum EmbeddedIdentity {
    /// The certificate in PEM form; it is its own CA, so clients trust it with CAINFO / --cacert.
    static let certificatePEM = """
-----BEGIN CERTIFICATE-----
MIIDSzCCAjOgAwIBAgIUAlnB7+QwPoZwjcLJYWYAWe7v4pYwDQYJKoZIhvcNAQEL
BQAwFDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMjAyNTY1NFoYDzIxMjYx
MDI5MDI1NjU0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwggEiMA0GCSqGSIb3DQEB
AQUAA4IBDwAwggEKAoIBAQDgBIBVDZGtny1izXg8F5ldzVXfAwiPJ7Deq7aDvkcE
P/wb+j7iSXn4OXIjwKK4cUnixZTK2mFBlZbbmpu0Mf9+35BkvvczycMajG7U03IO
BaYbDuClInmUe7ENruB/UKVJVVpnMBvvjlyGdqJv4BJHHupmRSYk/nyyPwWALJQO
pktnoJ2oqKMLUjKDpWOkTYrBoZjTJbMgAwv20Ye/+uujofL6YrlLQ279jc7L2NFa
CL2U/3MWwhurmdJ993hee8/OtPyQbtbyry87UKV+MH8lyE4f5ezBXffYH0ATElCM
sC0zxiu2BVO+NVbB/qw5VV2clcm9G/p/TWj4HF/LfKWzAgMBAAGjgZIwgY8wHQYD
VR0OBBYEFHv2FNADgwVJv4DIKwER1u/eR+cxMB8GA1UdIwQYMBaAFHv2FNADgwVJ
v4DIKwER1u/eR+cxMCwGA1UdEQQlMCOCCWxvY2FsaG9zdIcEfwAAAYcQAAAAAAAA
AAAAAAAAAAAAATAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwICpDANBgkq
hkiG9w0BAQsFAAOCAQEAjxwPouJTC6zpl2tlvnFRPZb+tH1QLAB5odvGmAgF0NeQ
tfDau9VCxPlYn7borKHXmVQGmprO4YeDleN7NI76p8dBQVYi20vWPwxKkKjwuOPg
KxwaZ8vvTVxON2Jqej3BM6ARRSGGy6sryWGRvXl/wwx9BWeTPG79xZRDWDTgIqK1
57/bdc+tmk48NxnzDm8dvu1AVSYy/adLY2WXRDh9nRp4tAyLnX7h0Ttpg51P14Pb
b/qEVkRTvJBrgiUxwwX9gHhRZuHqpAifXc94QGaZem/dVdvAlyg2LYUaRHxZIGzx
ay/EwTabvIYtYVzbTjx4h847XlCHiU/nH236D6AvEQ==
-----END CERTIFICATE-----
"""

    /// The matching RSA private key in PEM form.
    static let privateKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQDgBIBVDZGtny1i
zXg8F5ldzVXfAwiPJ7Deq7aDvkcEP/wb+j7iSXn4OXIjwKK4cUnixZTK2mFBlZbb
mpu0Mf9+35BkvvczycMajG7U03IOBaYbDuClInmUe7ENruB/UKVJVVpnMBvvjlyG
dqJv4BJHHupmRSYk/nyyPwWALJQOpktnoJ2oqKMLUjKDpWOkTYrBoZjTJbMgAwv2
0Ye/+uujofL6YrlLQ279jc7L2NFaCL2U/3MWwhurmdJ993hee8/OtPyQbtbyry87
UKV+MH8lyE4f5ezBXffYH0ATElCMsC0zxiu2BVO+NVbB/qw5VV2clcm9G/p/TWj4
HF/LfKWzAgMBAAECggEAZDnvVt5iyqzYiAeI303pqrunS0dWqYHnEsD9wDS+Hkso
VzYfs2uPW/0Lsa5Kvz3EgmbG+vk4oTi1zZv/ROBHwPJybni4Lh37oiGppqPRuC9T
0XBXFtr1TXcH0KjovV2ODeDXuSofnY7ym6BxbZ9xXguZcNdISS3pCXDD28RWG7T5
1PvSuG3ww0b9TfU71BU3iQkeeIQypJrqAfRKb9H1zX8zLrwLAnhcoZUfzyaXiXVK
PyrfJBwQF6STu/1caMn1er/9viHhnxI3a3VUHQkxm0SXBmgxERUgKS1/vYFVgw2S
p5CFVsY4pssuflrhi5eNsGL394VEbCAVT+x0CMB47QKBgQD1sde1+k1VhbdSR/wO
TVULv+XimlZKMaXUwMi+7hf2ZKVYWC72gqAJN9xsEqgeFybHUYXbvTCTIHHBx57t
RCvWAFcEZ7W8h+UBPavppUsPtMQq7mWAiF7SG0fVvTico8F+2SbEq3otog9Y7j5X
ufQh4sUMT2u1rukAVbmH+8ZyvQKBgQDpaeZUkt7mgV5L7GqDRiefuSTiBevZW/lx
iuvVhs14blRWlhuqhm3t5QDxC8ntrJi9Ry4emUnVljDVArIiozQk4K89cy/aVoA1
RDHjZiCTlBy74uIhGbnEGlevP1rYG9dDZWztHy2iS/E2GwR6qhuC1rRHYkRBmz01
P8lzuV+5LwKBgQDFWDOLV6EGMIEu9eLfGf5Vka10dcMZlQc9/BtCQLu+jNjCPRJ7
rjAdN2E07Udb4/yh3DlIZo29nzHAFDbzHO6Y1W0PfL3c0MqAVKjg4oOH+goW8aVV
uDNxT7hDVdlC98VTvdgF4DYisSjipXotvI77KMpdOO2q4PMF8dU0BGdBgQKBgQCX
J+5ybJ6O9c5kKpkbpC364MJC4QTIQSi73/Qz1lVvnTtey1zlRKMiAUBn2XOOSEyt
ns/+HtTSza2X9GP5zGjzTNIPYG3n3kauuBf6pGOKTsuA3UAFoYxMs6Z/Je8lrnnr
+l3c/WjnBnkRydNPwKOKSpJ6++cp+Wdc+Y7zM2QLHwKBgQCMfIKvFuOMtFXiy8RB
6CPygfPmr7HTee38EvQ4yEN0vR1EyVGEAeDDclFlCE71Xsya8ZFJhwgERgYJaSJt
Pe6F/9e/dLACGvpU8TCSuk1VL0q2vni+eLW9E/Smc5fP7rp6+KQU8x7KNsh5w5w/
samK1WCAXVgjIGAirU6rpZPm+w==
-----END PRIVATE KEY-----
"""
}
