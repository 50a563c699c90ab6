<?php
// An independent client of the sandbox, written the way the gateway's PHP
// SDK works: JSON over HTTP, the bearer token sent bare in Authorization,
// hash_keys made by the gateway's reference generateHashKey. Run it against
// a `paycli sandbox serve`:
//
//   php sdk_check.php http://127.0.0.1:8787/ccpayment
//
// It prints one line per step and exits non-zero on the first failure.

$base = $argv[1] ?? 'http://127.0.0.1:8787/ccpayment';
$appId = '5f8e2c1a9b7d4e3f6a0c8b2d4e6f1a3c';
$appSecret = '9c4b2e7f1a6d3c8e5b0f2a4d6c8e1b3f';
$merchantKey = '$2y$10$pAyCl1sAnDb0xMeRcHaNtkEy.sBx7Qm2Lw9Zt4Rv8Kp3Nd6Hj1Fe';

// The gateway's reference hash_key code.
function generateHashKey($plain, $appSecret) {
    $iv = substr(sha1(mt_rand()), 0, 16);
    $password = sha1($appSecret);
    $salt = substr(sha1(mt_rand()), 0, 4);
    $saltWithPassword = hash('sha256', $password . $salt);
    $encrypted = openssl_encrypt("$plain", 'aes-256-cbc', "$saltWithPassword", null, $iv);
    $msg_encrypted_bundle = "$iv:$salt:$encrypted";
    return str_replace('/', '__', $msg_encrypted_bundle);
}

function call($url, $body, $token = null) {
    $headers = "Content-Type: application/json\r\nAccept: application/json\r\n";
    if ($token !== null) {
        $headers .= "Authorization: $token\r\n"; // the SDK sends the token bare
    }
    $ctx = stream_context_create(['http' => [
        'method' => 'POST',
        'header' => $headers,
        'content' => json_encode($body),
        'ignore_errors' => true,
    ]]);
    $raw = file_get_contents($url, false, $ctx);
    preg_match('#^HTTP/\S+ (\d+)#', $http_response_header[0], $m);
    return [(int)$m[1], json_decode($raw, true)];
}

function check($ok, $what) {
    echo ($ok ? 'ok   ' : 'FAIL ') . $what . "\n";
    if (!$ok) exit(1);
}

[$code, $res] = call("$base/api/token", ['app_id' => $appId, 'app_secret' => $appSecret]);
check($code == 200 && $res['status_code'] == 100, 'token');
$token = $res['data']['token'];

[$code, $res] = call("$base/api/commissions", ['currency_code' => 'TRY', 'commission_by' => 'merchant', 'app_lang' => 'tr'], $token);
check($code == 200 && $res['status_code'] == 100 && count($res['data']) == 12, 'commissions TRY');

[$code, $res] = call("$base/api/commissions", ['currency_code' => 'TRY'], 'not-a-token');
check($code == 401, 'commissions without a valid token is 401');

$invoice = 'PHP-' . bin2hex(random_bytes(6));
$hash = generateHashKey("$invoice|$merchantKey", $appSecret);
[$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'include_pending_status' => true, 'hash_key' => $hash], $token);
check($code == 200 && $res['status_code'] == 31, 'checkstatus of an unknown invoice is 31 (hash_key accepted)');

$bad = generateHashKey("$invoice|$merchantKey", 'wrong secret');
[$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'hash_key' => $bad], $token);
check($res['status_code'] == 90, 'checkstatus with a hash_key of another secret is 90');

// With a wallet token for 150.00 TRY as the second argument
// (paycli sandbox wallet-token --amount 150.00 --currency TRY), pay and check.
if (isset($argv[2])) {
    $invoice = 'PHP-' . bin2hex(random_bytes(6));
    $hash = generateHashKey("150.00|1|TRY|$merchantKey|$invoice", $appSecret);
    $pay = ['merchant_key' => $merchantKey, 'hash_key' => $hash, 'invoice_id' => $invoice,
        'wallet_transient_token' => $argv[2], 'name' => 'Ayşe', 'surname' => 'Yılmaz', 'bill_email' => 'ayse@example.com'];
    [$code, $res] = call("$base/api/walletPay", $pay, $token);
    check($res['status_code'] == 100 && $res['data']['order_no'] === $res['data']['order_id'], 'walletPay 150.00 TRY');
    [$code, $res] = call("$base/api/walletPay", $pay, $token);
    check($res['status_code'] == 3, 'walletPay again for the same invoice is 3');
    $hash = generateHashKey("$invoice|$merchantKey", $appSecret);
    [$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'hash_key' => $hash], $token);
    check($res['status_code'] == 100 && $res['transaction_status'] == 'Completed', 'checkstatus after walletPay');
}
