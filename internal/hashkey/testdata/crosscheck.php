<?php
// paycli's own PHP implementation of the hash_key, written from the steps
// in docs/protocol.md ("hash_key": "Making one" and "Checking one"). Go's
// internal/hashkey is cross-checked against it: this side stands on PHP's
// hash() and openssl_*() functions, the ones the gateway's servers run, so
// a step that Go's crypto packages and paycli's Go code get wrong together
// shows up as a difference here. The known answers in docs/hash-keys.md tie
// both sides to the values the gateway itself makes.
//
// Run directly, it reads one JSON object per line and writes one per line,
// so that a Go test checks many cases with one process:
//
//   php crosscheck.php make   {"app_secret": "...", "data": "...", "iv": "...", "salt": "..."}
//       -> {"hash_key": "..."}; iv and salt are optional, random when absent
//   php crosscheck.php check  {"app_secret": "...", "hash_key": "..."}
//       -> {"ok": true, "data_b64": "...", "fields_b64": ["...", ...]} or {"ok": false}
//
// Texts go out base64-encoded so that any bytes a decryption yields survive
// json_encode. Included from another script (internal/sandbox's interop
// client), it only defines the three functions.

const HASHKEY_CIPHER = 'aes-256-cbc';
const HASHKEY_IV_CHARS = 16;  // one AES block: the iv's characters are its bytes
const HASHKEY_SALT_CHARS = 4;

// hashkey_key derives the AES key from the app_secret and a hash_key's salt
// (docs/protocol.md, hash_key, steps 4 and 5).
function hashkey_key(string $appSecret, string $salt): string
{
    // The password is the hex text of the SHA-1, not its raw 20 bytes:
    // hash() answers lowercase hex unless asked for binary.
    $password = hash('sha1', $appSecret);
    // AES-256 takes 32 bytes, and the key is the first 32 characters of the
    // hex SHA-256, used as ASCII bytes; hex-decoding it instead is one of
    // the mistakes the protocol page lists. openssl_encrypt would cut all 64
    // characters down to the same 32 by itself; cutting here states the step
    // instead of leaning on that.
    return substr(hash('sha256', $password . $salt), 0, 32);
}

// hashkey_make makes a hash_key for a plaintext whose fields are already
// joined by "|" (docs/protocol.md, hash_key, "Making one"). Without iv and
// salt it draws them at random, in the form the gateway uses.
function hashkey_make(string $appSecret, string $plaintext, ?string $iv = null, ?string $salt = null): string
{
    // Lowercase hex, 16 and 4 characters: 8 and 2 random bytes, hex-encoded.
    $iv ??= bin2hex(random_bytes(HASHKEY_IV_CHARS / 2));
    $salt ??= bin2hex(random_bytes(HASHKEY_SALT_CHARS / 2));
    if (strlen($iv) !== HASHKEY_IV_CHARS || strlen($salt) !== HASHKEY_SALT_CHARS) {
        // openssl would pad or cut a wrong-length iv with only a warning;
        // a test case like that is a mistake in the test.
        throw new InvalidArgumentException("iv must be 16 characters and salt 4, got " . strlen($iv) . " and " . strlen($salt));
    }
    // OPENSSL_RAW_DATA: take the ciphertext as bytes and Base64 it here, so
    // that step 6's standard Base64 is explicit. The iv goes in as its 16
    // ASCII characters, not hex-decoded. openssl pads with PKCS#7 unless
    // told otherwise.
    $ct = openssl_encrypt($plaintext, HASHKEY_CIPHER, hashkey_key($appSecret, $salt), OPENSSL_RAW_DATA, $iv);
    if ($ct === false) {
        throw new RuntimeException('openssl_encrypt failed: ' . openssl_error_string());
    }
    // Step 7: every "/" of the whole value, not just the first, becomes "__"
    // (the iv and salt, being hex, have none).
    return str_replace('/', '__', $iv . ':' . $salt . ':' . base64_encode($ct));
}

// hashkey_open returns a hash_key's plaintext, or null when it is not
// shaped like one or does not decrypt with this app_secret
// (docs/protocol.md, hash_key, "Checking one").
function hashkey_open(string $appSecret, string $hashKey): ?string
{
    // Undo step 7 first: "__" can only have come from "/", and the
    // ciphertext's "/" must be back before it is Base64-decoded.
    $parts = explode(':', str_replace('__', '/', $hashKey));
    // At least three parts; any further ones are not read.
    if (count($parts) < 3) {
        return null;
    }
    [$iv, $salt, $b64] = $parts;
    if (strlen($iv) !== HASHKEY_IV_CHARS) {
        return null;
    }
    $ct = base64_decode($b64, true);
    if ($ct === false) {
        return null;
    }
    // A wrong key almost always shows as bad PKCS#7 padding, and openssl
    // answers false for it.
    $plaintext = openssl_decrypt($ct, HASHKEY_CIPHER, hashkey_key($appSecret, $salt), OPENSSL_RAW_DATA, $iv);
    return $plaintext === false ? null : $plaintext;
}

// The JSON Lines driver runs only when this file is the script PHP was
// started with.
if (get_included_files()[0] !== __FILE__) {
    return;
}
$mode = $argv[1] ?? '';
if ($mode !== 'make' && $mode !== 'check') {
    fwrite(STDERR, "usage: php crosscheck.php make|check < cases.jsonl\n");
    exit(2);
}
while (($line = fgets(STDIN)) !== false) {
    $line = rtrim($line, "\r\n");
    if ($line === '') {
        continue;
    }
    $in = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
    if ($mode === 'make') {
        $out = ['hash_key' => hashkey_make($in['app_secret'], $in['data'], $in['iv'] ?? null, $in['salt'] ?? null)];
    } else {
        $plaintext = hashkey_open($in['app_secret'], $in['hash_key']);
        $out = $plaintext === null
            ? ['ok' => false]
            : ['ok' => true, 'data_b64' => base64_encode($plaintext), 'fields_b64' => array_map('base64_encode', explode('|', $plaintext))];
    }
    echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR), "\n";
}
