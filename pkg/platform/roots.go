package platform

// The images are static binaries on an empty base: no /etc/ssl and no
// zoneinfo. Every service binary passes through this package, so these two
// imports give each one a CA bundle (used only when the system offers none,
// so a CA mounted with SSL_CERT_FILE or SSL_CERT_DIR still wins) and the
// time zone database. Without the roots an HTTPS identity provider, MongoDB
// Atlas or TLS Kafka fail with "certificate signed by unknown authority".
import (
	_ "time/tzdata"

	_ "golang.org/x/crypto/x509roots/fallback"
)
