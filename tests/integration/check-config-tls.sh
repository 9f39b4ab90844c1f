#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `storpulsed --check-config` reads [HTTP] TLSCertificate=/TLSKey= as the endpoint would and
# names FILE:LINE of the key at fault: a good pair (RSA, EC) passes; a key of another certificate,
# garbage inside PEM markers, an empty file, a missing file, a FIFO (which would block a read), a
# key given as the certificate, a certificate given as the key, and one of the two alone fail.
# The pairs are made by openssl here. TAP.
set -u
daemon=$1
n=0 failed=0
tap() {
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
command -v openssl >/dev/null || { echo "Bail out! openssl missing: build-aux/install-deps.sh --test"; exit 1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$t/rsa.key" -out "$t/rsa.crt" -days 2 \
        -subj /CN=rsa 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$t/ec.key" \
        -out "$t/ec.crt" -days 2 -subj /CN=ec 2>/dev/null
printf -- '-----BEGIN CERTIFICATE-----\nnot one\n-----END CERTIFICATE-----\n' >"$t/garbage.crt"
: >"$t/empty.crt"
mkfifo "$t/fifo"

# check CERT KEY: runs --check-config on a config whose TLSCertificate= is line 4, TLSKey= line 5
check() {
        {
                printf '[Daemon]\nLogLevel=info\n[HTTP]\n'
                [ -n "$1" ] && printf 'TLSCertificate=%s\n' "$t/$1"
                [ -n "$2" ] && printf 'TLSKey=%s\n' "$t/$2"
        } >"$t/s.conf"
        out=$(timeout 20 "$daemon" --check-config --config "$t/s.conf" 2>&1)
        rc=$?
        echo "# $1 $2: exit $rc: $out"
}
good() { # good CERT KEY
        check "$1" "$2"
        tap "$([ $rc -eq 0 ]; echo $?)" "$1 with $2 passes"
}
bad() { # bad CERT KEY LINE WORDS: exit 2 and "s.conf:LINE: ...WORDS"
        check "$1" "$2"
        tap "$([ $rc -eq 2 ] && [[ $out == *"s.conf:$3: "*"$4"* ]]; echo $?)" \
                "${1:-no certificate} with ${2:-no key}: s.conf:$3 says \"$4\""
}
good rsa.crt rsa.key
good ec.crt ec.key
bad rsa.crt ec.key 5 "does not load with"
bad garbage.crt rsa.key 5 "does not load with"
bad empty.crt rsa.key 4 "empty file"
bad nonexistent.crt rsa.key 4 "No such file or directory"
bad fifo rsa.key 4 "not a regular file"
bad rsa.key rsa.key 4 'no PEM "-----BEGIN ...CERTIFICATE-----" block'
bad rsa.crt rsa.crt 5 'no PEM "-----BEGIN ...PRIVATE KEY-----" block'
bad rsa.crt "" 4 "go together"
bad "" rsa.key 4 "go together"
# a drop-in names its own file and line
printf '[Daemon]\nLogLevel=info\n' >"$t/d.conf"
mkdir "$t/d.conf.d"
printf '# drop-in\n[HTTP]\nTLSCertificate=%s\nTLSKey=%s\n' "$t/rsa.crt" "$t/ec.key" \
        >"$t/d.conf.d/tls.conf"
out=$(timeout 20 "$daemon" --check-config --config "$t/d.conf" 2>&1)
rc=$?
echo "# drop-in: exit $rc: $out"
tap "$([ $rc -eq 2 ] && [[ $out == *"d.conf.d/tls.conf:4: "* ]]; echo $?)" \
        "a mismatched key set in a drop-in: its file and line"
echo "1..$n"
[ "$failed" -eq 0 ]
