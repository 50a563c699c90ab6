<?php
// The gateway's reference hash_key code (Sipay's generateHashKey and
// validateHashKey, as published in its integration samples), driven by
// JSON Lines so a Go test can cross-check many cases with one process.
//
//   php reference.php generate  < {"app_secret": "...", "data": "...", "iv": "...", "salt": "..."} per line
//       prints {"hash_key": "..."}; iv and salt are optional: without them
//       the reference's own mt_rand values are used, exactly as the gateway does.
//   php reference.php validate  < {"app_secret": "...", "hash_key": "..."} per line
//       prints {"ok": true, "data_b64": "...", "fields_b64": [...]} or {"ok": false}
//
// Texts are passed base64-encoded on the way out so that any bytes survive
// json_encode; the input's strings are JSON (UTF-8).

function generateHashKey($data, $app_secret, $iv = null, $salt = null)
{
    $password = sha1($app_secret);
    if ($iv === null) {
        $iv = substr(sha1(mt_rand()), 0, 16);
    }
    if ($salt === null) {
        $salt = substr(sha1(mt_rand()), 0, 4);
    }
    $saltWithPassword = hash('sha256', $password . $salt);
    $encrypted = openssl_encrypt($data, 'aes-256-cbc', $saltWithPassword, 0, $iv);
    $msg_encrypted_bundle = "$iv:$salt:$encrypted";
    $msg_encrypted_bundle = str_replace('/', '__', $msg_encrypted_bundle);
    return $msg_encrypted_bundle;
}

// validateHashKey returns the decrypted text, or false when it does not
// decrypt. The reference goes on to explode('|', ...) the text into its
// fields; the caller does that here so that every field is reported.
function validateHashKey($hashKey, $app_secret)
{
    $hashKey = str_replace('__', '/', $hashKey);
    $password = sha1($app_secret);
    $components = explode(':', $hashKey);
    if (count($components) < 3) {
        return false;
    }
    $iv = $components[0];
    $salt = hash('sha256', $password . $components[1]);
    $encryptedMsg = $components[2];
    return @openssl_decrypt($encryptedMsg, 'aes-256-cbc', $salt, 0, $iv);
}

$mode = $argv[1] ?? '';
if ($mode !== 'generate' && $mode !== 'validate') {
    fwrite(STDERR, "usage: php reference.php generate|validate < cases.jsonl\n");
    exit(2);
}
while (($line = fgets(STDIN)) !== false) {
    $line = rtrim($line, "\r\n");
    if ($line === '') {
        continue;
    }
    $in = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
    if ($mode === 'generate') {
        $out = ['hash_key' => generateHashKey($in['data'], $in['app_secret'], $in['iv'] ?? null, $in['salt'] ?? null)];
    } else {
        $data = validateHashKey($in['hash_key'], $in['app_secret']);
        if ($data === false) {
            $out = ['ok' => false];
        } else {
            $out = ['ok' => true, 'data_b64' => base64_encode($data), 'fields_b64' => array_map('base64_encode', explode('|', $data))];
        }
    }
    echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR), "\n";
}
