<?php
// An independent client of the sandbox, written the way the gateway's PHP
// SDK works: JSON over HTTP, the bearer token sent bare in Authorization,
// hash_keys made and checked in PHP (openssl, as the SDK does) by paycli's
// PHP implementation of docs/protocol.md's steps,
// internal/hashkey/testdata/crosscheck.php, so none of paycli's Go code is
// on this side. Run it against a `paycli sandbox serve`:
//
//   php sdk_check.php http://127.0.0.1:8787/ccpayment
//
// It prints one line per step and exits non-zero on the first failure.

$base = $argv[1] ?? 'http://127.0.0.1:8787/ccpayment';
$appId = '5f8e2c1a9b7d4e3f6a0c8b2d4e6f1a3c';
$appSecret = '9c4b2e7f1a6d3c8e5b0f2a4d6c8e1b3f';
$merchantKey = '$2y$10$pAyCl1sAnDb0xMeRcHaNtkEy.sBx7Qm2Lw9Zt4Rv8Kp3Nd6Hj1Fe';

require __DIR__ . '/../../../hashkey/testdata/crosscheck.php';

function call($url, $body, $token = null) {
    [$status, $raw] = send($url, $body, $token);
    return [$status, json_decode($raw, true)];
}

// send posts JSON asking for JSON, and returns the status and the raw body.
function send($url, $body, $token = null) {
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
    return [(int)$m[1], $raw];
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
$hash = hashkey_make($appSecret, "$invoice|$merchantKey");
[$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'include_pending_status' => true, 'hash_key' => $hash], $token);
check($code == 200 && $res['status_code'] == 31, 'checkstatus of an unknown invoice is 31 (hash_key accepted)');

$bad = hashkey_make('wrong secret', "$invoice|$merchantKey");
[$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'hash_key' => $bad], $token);
check($res['status_code'] == 90, 'checkstatus with a hash_key of another secret is 90');

// With a wallet token for 150.00 TRY as the second argument
// (paycli sandbox wallet-token --amount 150.00 --currency TRY), pay and check.
if (isset($argv[2])) {
    $invoice = 'PHP-' . bin2hex(random_bytes(6));
    $hash = hashkey_make($appSecret, "150.00|1|TRY|$merchantKey|$invoice");
    $pay = ['merchant_key' => $merchantKey, 'hash_key' => $hash, 'invoice_id' => $invoice,
        'wallet_transient_token' => $argv[2], 'name' => 'Ayşe', 'surname' => 'Yılmaz', 'bill_email' => 'ayse@example.com'];
    [$code, $res] = call("$base/api/walletPay", $pay, $token);
    check($res['status_code'] == 100 && $res['data']['order_no'] === $res['data']['order_id'], 'walletPay 150.00 TRY');
    [$code, $res] = call("$base/api/walletPay", $pay, $token);
    check($res['status_code'] == 3, 'walletPay again for the same invoice is 3');
    $hash = hashkey_make($appSecret, "$invoice|$merchantKey");
    [$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'hash_key' => $hash], $token);
    check($res['status_code'] == 100 && $res['transaction_status'] == 'Completed', 'checkstatus after walletPay');
}

// The merchant API, called the way the SDK's samples call it: a 2D
// pre-authorization of the items of create_non_secure_payment.php (floats,
// an items array, installments as a string), its capture, a refund, the
// installment lookups, and a 3D sale completed by the merchant.
$items = [
    ['name' => 'Test Product 1', 'price' => 100, 'quantity' => 1, 'description' => 'd1'],
    ['name' => 'Test Product 2', 'price' => 50, 'quantity' => 2, 'description' => 'd2'],
    ['name' => 'Test Product 3', 'price' => 50.35, 'quantity' => 1, 'description' => 'd3'],
];
$total = 0;
foreach ($items as $it) { $total += $it['price'] * $it['quantity']; }
$invoice = 'PHP-2D-' . bin2hex(random_bytes(6));
$pay = ['merchant_key' => $merchantKey, 'currency_code' => 'TRY', 'cc_holder_name' => 'John Doe',
    'cc_no' => '4508034508034509', 'expiry_month' => '12', 'expiry_year' => '2099', 'cvv' => '000',
    'items' => $items, 'installments_number' => '3', 'name' => 'John', 'surname' => 'Doe',
    'invoice_id' => $invoice, 'total' => $total, 'cancel_url' => 'https://merchant.test/fail',
    'return_url' => 'https://merchant.test/ok', 'bill_email' => 'example@example.com',
    'transaction_type' => 'PreAuth', 'sale_web_hook_key' => 'sales',
    'hash_key' => hashkey_make($appSecret, "$total|3|TRY|$merchantKey|$invoice")];
[$code, $res] = call("$base/api/paySmart2D", $pay, $token);
check($res['status_code'] === 100 && $res['data']['sipay_status'] === 1 && $res['data']['transaction_type'] === 'PreAuth'
    && strpos(json_encode($res), '4508034508034509') === false, 'paySmart2D PreAuth of 350.35 TRY in 3 installments');
$order = $res['data']['order_id'];

$capture = 200.0;
[$code, $res] = call("$base/api/confirmPayment", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'total' => $capture,
    'status' => 1, 'hash_key' => hashkey_make($appSecret, "$merchantKey|$invoice|1")], $token);
check($res['status_code'] === 100 && $res['transaction_status'] === 'Completed' && $res['order_id'] === $order, 'confirmPayment captures 200');
[$code, $res] = call("$base/api/confirmPayment", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice,
    'status' => 2, 'hash_key' => hashkey_make($appSecret, "$merchantKey|$invoice|2")], $token);
check($res['status_code'] !== 100, 'confirmPayment cannot cancel a captured pre-authorization');

$refund = 200;
[$code, $res] = call("$base/api/refund", ['invoice_id' => $invoice, 'amount' => $refund, 'app_id' => $appId, 'app_secret' => $appSecret,
    'merchant_key' => $merchantKey, 'hash_key' => hashkey_make($appSecret, "$refund|$invoice|$merchantKey"),
    'refund_web_hook_key' => 'refunds'], $token);
check($res['status_code'] === 100 && $res['order_no'] === $order && $res['invoice_id'] === $invoice && $res['ref_no'] !== '', 'refund 200 without a refund_transaction_id');
[$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'include_pending_status' => true,
    'show_refund_info' => 'Y', 'hash_key' => hashkey_make($appSecret, "$invoice|$merchantKey")], $token);
check($res['status_code'] === 100 && $res['transaction_status'] === 'Refunded' && $res['total_refunded_amount'] == 200
    && count($res['refund_info']) === 1, 'checkstatus shows the refund');
check($res['bank_status_code'] === '00' && $res['reason'] === '' && $res['product_price'] == 250.35 && $res['transaction_id'] !== ''
    && strlen($res['ref_number']) === 12 && $res['message'] !== '' && $res['bank_status_description'] !== ''
    // The types of the gateway's OpenAPI example: prices and commissions as strings.
    && is_string($res['product_price']) && is_string($res['merchant_commission']) && is_string($res['user_commission'])
    && preg_match('/^\d{6}\*{4}\d{4}$/', $res['cc_no']) && $res['card_type'] === 'CREDIT CARD' && preg_match('/^\d{4}-\d\d-\d\d$/', $res['settlement_date'])
    && $res['original_bank_error_code'] === '' && $res['original_bank_error_description'] === '', 'checkstatus has the documented fields');

[$code, $res] = call("$base/api/getpos", ['credit_card' => '540667', 'amount' => 100.0, 'currency_code' => 'TRY', 'merchant_key' => $merchantKey], $token);
check($res['status_code'] === 100 && count($res['data']) > 1 && $res['data'][0]['card_program'] === 'WORLD' && $res['data'][0]['installments_number'] === 1, 'getpos 540667');
// The shape of a captured getpos answer: merchant_fee a number,
// amount_to_be_paid a string, the issuing bank, card_is_commercial a boolean.
$o = $res['data'][0];
check(is_string($o['amount_to_be_paid']) && $o['amount_to_be_paid'] === '100.00' && (is_float($o['merchant_fee']) || is_int($o['merchant_fee']))
    && $o['card_type'] === 'CREDIT_CARD' && $o['card_scheme'] === 'MASTER_CARD' && $o['card_is_commercial'] === false
    && $o['card_bank_id'] === '67' && $o['card_bank_name'] !== '' && !isset($o['is_commercial']), 'getpos option in the recorded shape');
[$code, $res] = call("$base/api/getpos", ['credit_card' => '402940', 'amount' => 100.0, 'currency_code' => 'TRY', 'merchant_key' => $merchantKey], $token);
check($res['status_code'] === 100 && count($res['data']) === 1 && $res['data'][0]['card_type'] === 'DEBIT_CARD', 'getpos of a debit card: one installment');
[$code, $res] = call("$base/api/getpos", ['credit_card' => '111111', 'amount' => 100.0, 'currency_code' => 'TRY', 'merchant_key' => $merchantKey], $token);
check($res['status_code'] === 100 && count($res['data']) === 1, 'getpos of a foreign card');
[$code, $res] = call("$base/api/installments", ['merchant_key' => $merchantKey], $token);
check($res['status_code'] === 100 && is_array($res['installments']), 'installments');

// 3D completed by the merchant: the payment form, the challenge, then /payment/complete.
$invoice = 'PHP-3D-' . bin2hex(random_bytes(6));
$form = ['merchant_key' => $merchantKey, 'currency_code' => 'TRY', 'cc_holder_name' => 'John Doe', 'cc_no' => '4355084355084358',
    'expiry_month' => '12', 'expiry_year' => '2099', 'cvv' => '000', 'installments_number' => 1, 'name' => 'John', 'surname' => 'Doe',
    'invoice_id' => $invoice, 'total' => 75.5, 'cancel_url' => 'https://merchant.test/fail', 'return_url' => 'https://merchant.test/ok',
    'payment_completed_by' => 'merchant', 'hash_key' => hashkey_make($appSecret, "75.5|1|TRY|$merchantKey|$invoice")];
$ctx = stream_context_create(['http' => ['method' => 'POST', 'header' => "Content-Type: application/x-www-form-urlencoded\r\n",
    'content' => http_build_query($form), 'ignore_errors' => true]]);
$page = file_get_contents("$base/api/paySmart3D", false, $ctx);
check(preg_match('#name="order_id" value="([^"]+)"#', $page, $m) === 1, 'paySmart3D answers the challenge page');
$ctx = stream_context_create(['http' => ['method' => 'POST', 'header' => "Content-Type: application/x-www-form-urlencoded\r\nAccept: application/json\r\n",
    'content' => http_build_query(['order_id' => $m[1], 'decision' => 'approve']), 'ignore_errors' => true]]);
$res = json_decode(file_get_contents("$base/__sandbox/3d/challenge", false, $ctx), true);
check($res['order_id'] === $m[1] && $res['url'] === 'https://merchant.test/ok', '3D challenge approved');
$order = $m[1];
[$code, $res] = call("$base/payment/complete", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'order_id' => 'VP-NOT-IT',
    'status' => 'complete', 'hash_key' => hashkey_make($appSecret, "$merchantKey|$invoice|VP-NOT-IT|complete")], $token);
check($res['status_code'] === 31, 'payment/complete refuses an unknown order id');
[$code, $res] = call("$base/payment/complete", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice, 'order_id' => $order,
    'status' => 'complete', 'hash_key' => hashkey_make($appSecret, "$merchantKey|$invoice|$order|complete")], $token);
check($res['status_code'] === 100 && $res['data']['order_id'] === $order && $res['data']['status'] === 'Completed', 'payment/complete');

// hashFields checks a hash_key the sandbox sends back (sale webhook and 3D
// return layout status|total|invoice_id|order_id|currency_code) and returns
// its fields, or null when it does not decrypt.
function hashFields($hashKey, $appSecret) {
    $plain = hashkey_open($appSecret, $hashKey);
    return $plain === null ? null : explode('|', $plain);
}

function post($url, $fields, $headers = '') {
    $ctx = stream_context_create(['http' => ['method' => 'POST', 'header' => "Content-Type: application/x-www-form-urlencoded\r\n" . $headers,
        'content' => http_build_query($fields), 'ignore_errors' => true]]);
    return file_get_contents($url, false, $ctx);
}

// hiddenFields reads a page's form: its action and hidden inputs.
function hiddenFields($page) {
    preg_match('#<form method="post" action="([^"]*)"#', $page, $a);
    preg_match_all('#<input type="hidden" name="([^"]+)" value="([^"]*)"#', $page, $m, PREG_SET_ORDER);
    $fields = [];
    foreach ($m as $f) $fields[$f[1]] = html_entity_decode($f[2], ENT_QUOTES);
    return [html_entity_decode($a[1] ?? '', ENT_QUOTES), $fields];
}

$origin = preg_replace('#/ccpayment$#', '', $base);

// The 3D return as a browser sees it: the challenge answered from the page,
// the result page's form posting to return_url with a valid hash_key.
$invoice = 'PHP-3R-' . bin2hex(random_bytes(6));
$form['invoice_id'] = $invoice;
$form['payment_completed_by'] = 'app';
$form['hash_key'] = hashkey_make($appSecret, "75.5|1|TRY|$merchantKey|$invoice");
$page = post("$base/api/paySmart3D", $form);
[$action, $fields] = hiddenFields($page);
check(strpos($page, 'This is a sandbox') !== false && $action === '/ccpayment/__sandbox/3d/challenge', 'paySmart3D challenge page says sandbox');
$result = post($origin . $action, $fields + ['decision' => 'approve']);
[$action, $ret] = hiddenFields($result);
$h = hashFields($ret['hash_key'] ?? '', $appSecret);
check($action === 'https://merchant.test/ok' && $ret['status'] === '1' && $ret['invoice_id'] === $invoice
    && $h !== null && $h[0] === '1' && (float)$h[1] == 75.5 && $h[2] === $invoice && $h[3] === $ret['order_id'] && $h[4] === 'TRY',
    '3D return: posts status 1 to return_url with a valid hash_key');
$declined = 'PHP-3X-' . bin2hex(random_bytes(6));
$form['invoice_id'] = $declined;
$form['hash_key'] = hashkey_make($appSecret, "75.5|1|TRY|$merchantKey|$declined");
[$action, $fields] = hiddenFields(post("$base/api/paySmart3D", $form));
[$action, $ret] = hiddenFields(post($origin . $action, $fields + ['decision' => 'decline']));
$h = hashFields($ret['hash_key'] ?? '', $appSecret);
check($action === 'https://merchant.test/fail' && $ret['status'] === '0' && $h !== null && $h[0] === '0' && $h[2] === $declined,
    '3D return: a declined challenge posts status 0 to cancel_url');
// A 3D payment whose items do not add up to the total: the gateway's form
// posting code 13 to cancel_url, as another client recorded it.
$refused = 'PHP-3E-' . bin2hex(random_bytes(6));
$form['invoice_id'] = $refused;
$form['hash_key'] = hashkey_make($appSecret, "75.5|1|TRY|$merchantKey|$refused");
$form['items'] = json_encode([['name' => 'Item', 'price' => 70, 'quantity' => 1, 'description' => 'd']]);
[$action, $fields] = hiddenFields(post("$base/api/paySmart3D", $form));
check($action === 'https://merchant.test/fail' && array_keys($fields) === ['invoice_id', 'error_code', 'status_code', 'status_description']
    && $fields['status_code'] === '13' && $fields['error_code'] === '13' && $fields['invoice_id'] === $refused,
    'paySmart3D with items not adding up posts 13 to cancel_url');
unset($form['items']);

// Saved cards, with the SDK's types: card and customer numbers as JSON
// numbers, getCardTokens as a GET with a JSON body.
$customer = random_int(100000, 999999);
$save = ['merchant_key' => $merchantKey, 'card_holder_name' => 'John Doe', 'card_number' => 4508034508034509,
    'expiry_month' => 12, 'expiry_year' => 2099, 'customer_number' => $customer, 'customer_name' => 'John Doe',
    'customer_email' => 'john@doe.com', 'customer_phone' => '901111111111',
    'hash_key' => hashkey_make($appSecret, "$merchantKey|$customer|John Doe|4508034508034509|12|2099")];
[$code, $res] = call("$base/api/saveCard", $save, $token);
check($res['status_code'] === 100 && strlen($res['card_token']) === 32 && $res['card_number'] === '450803******4509'
    && $res['customer_number'] === (string)$customer && is_int($res['id']), 'saveCard');
$cardToken = $res['card_token'];
$save['card_holder_name'] = 'Jane Doe';
[$code, $res] = call("$base/api/saveCard", $save, $token);
check($res['status_code'] === 68, 'saveCard with a hash_key of other values is 68');
$ctx = stream_context_create(['http' => ['method' => 'GET', 'header' => "Content-Type: application/json\r\nAccept: application/json\r\nAuthorization: $token\r\n",
    'content' => json_encode(['merchant_key' => $merchantKey, 'customer_number' => $customer]), 'ignore_errors' => true]]);
$res = json_decode(file_get_contents("$base/api/getCardTokens", false, $ctx), true);
check($res['status_code'] === 100 && count($res['data']) === 1 && $res['data'][0]['card_token'] === $cardToken, 'getCardTokens (GET with a JSON body)');
$c = $res['data'][0];
check(is_string($c['card_user_key']) && $c['card_user_key'] !== '' && is_int($c['merchant_id']) && $c['card_issuer_bank'] === 'T. IS BANKASI A.S.'
    && $c['bank_id'] === 64 && $c['card_number'] === '450803******4509'
    && preg_match('/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/', $c['created_at']) === 1, 'getCardTokens: a card as the SDK models it');
// The sandbox's fields after the SDK's: paycli's `cards list` shows the
// expiry and the program.
check($c['expiry_month'] === '12' && $c['expiry_year'] === '2099' && $c['card_program'] === 'MAXIMUM' && $c['card_scheme'] === 'VISA',
    'getCardTokens: expiry, scheme and program after the SDK\'s fields');
[$code, $res] = call("$base/api/editCard", ['card_token' => $cardToken, 'customer_number' => $customer, 'expiry_month' => 1,
    'expiry_year' => 2098, 'card_holder_name' => 'John Q Doe', 'merchant_key' => $merchantKey,
    'hash_key' => hashkey_make($appSecret, "$merchantKey|$customer|$cardToken")], $token);
check($res['status_code'] === 100 && $res['expiry_year'] === '2098' && $res['card_holder_name'] === 'John Q Doe', 'editCard');

// Pay by card token: the SDK reads the answer as HTML (the challenge).
$invoice = 'PHP-TK-' . bin2hex(random_bytes(6));
$items = json_encode([['name' => 'Item', 'price' => 100, 'quantity' => 2, 'description' => 'd']]);
$tokenPay = ['merchant_key' => $merchantKey, 'currency_code' => 'TRY', 'card_token' => $cardToken, 'customer_number' => $customer,
    'customer_email' => 'john@doe.com', 'customer_phone' => '901111111111', 'customer_name' => 'John Doe', 'items' => $items,
    'installments_number' => '1', 'name' => 'John', 'surname' => 'Doe', 'invoice_id' => $invoice, 'total' => 200,
    'cancel_url' => 'https://merchant.test/fail', 'return_url' => 'https://merchant.test/ok',
    'hash_key' => hashkey_make($appSecret, "200|1|TRY|$merchantKey|$invoice")];
$ctx = stream_context_create(['http' => ['method' => 'POST', 'header' => "Content-Type: application/json\r\nAccept: application/json\r\nAuthorization: $token\r\n",
    'content' => json_encode($tokenPay), 'ignore_errors' => true]]);
[$action, $fields] = hiddenFields(file_get_contents("$base/api/payByCardToken", false, $ctx));
check(isset($fields['order_id']), 'payByCardToken answers the challenge page');
[$action, $ret] = hiddenFields(post($origin . $action, $fields + ['decision' => 'approve']));
$h = hashFields($ret['hash_key'] ?? '', $appSecret);
check($action === 'https://merchant.test/ok' && $h !== null && $h[0] === '1' && $h[2] === $invoice, 'payByCardToken: challenge approved, valid return');
[$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice,
    'hash_key' => hashkey_make($appSecret, "$invoice|$merchantKey")], $token);
check($res['status_code'] === 100 && $res['transaction_status'] === 'Completed' && $res['credit_card_no'] === '450803******4509', 'checkstatus after payByCardToken');
[$code, $res] = call("$base/api/deleteCard", ['card_token' => $cardToken, 'customer_number' => $customer, 'merchant_key' => $merchantKey,
    'hash_key' => hashkey_make($appSecret, "$merchantKey|$customer|$cardToken")], $token);
check($res['status_code'] === 100, 'deleteCard');
[$code, $res] = call("$base/api/deleteCard", ['card_token' => $cardToken, 'customer_number' => $customer, 'merchant_key' => $merchantKey,
    'hash_key' => hashkey_make($appSecret, "$merchantKey|$customer|$cardToken")], $token);
check($res['status_code'] === 1 && $res['status_description'] === 'The card token is not a saved card of this customer.', 'deleteCard twice is 1');
$tokenPay['invoice_id'] = $invoice . 'b';
$tokenPay['hash_key'] = hashkey_make($appSecret, "200|1|TRY|$merchantKey|{$invoice}b");
// A refused 3D payment is the form to cancel_url, HTML though JSON was
// asked for, as the gateway answers it.
[$code, $page] = send("$base/api/payByCardToken", $tokenPay, $token);
[$action, $fields] = hiddenFields($page);
check($action === $tokenPay['cancel_url'] && ($fields['status_code'] ?? '') === '1', 'payByCardToken with a deleted card is refused');

// A payment link: the invoice as a JSON string (the SDK's toJsonString),
// the link's page, its card form, the challenge, the return.
$invoice = 'PHP-LK-' . bin2hex(random_bytes(6));
$linkInvoice = ['invoice_id' => $invoice, 'invoice_description' => 'Order 42', 'total' => 250,
    'items' => [['name' => 'Item', 'price' => 250, 'quantity' => 1, 'description' => 'd']], 'max_installment' => '3',
    'cancel_url' => 'https://merchant.test/fail', 'return_url' => 'https://merchant.test/ok', 'bill_email' => 'john@doe.com',
    'bill_phone' => '905555555555', 'order_type' => 0, 'hash_key' => hashkey_make($appSecret, "250|TRY|$merchantKey|$invoice")];
// A phone written as a person would (the SDK's sample sends digits) is refused, and the invoice stays free.
[$code, $res] = call("$base/purchase/link", ['merchant_key' => $merchantKey,
    'invoice' => json_encode(['bill_phone' => '+90 555 555 55 55'] + $linkInvoice), 'currency_code' => 'TRY', 'name' => 'John', 'surname' => 'Doe'], $token);
check($res['status_code'] === 1 && strpos($res['status_description'], 'phone') !== false, 'purchase/link refuses a bill_phone that is not digits');
[$code, $res] = call("$base/purchase/link", ['merchant_key' => $merchantKey, 'invoice' => json_encode($linkInvoice),
    'currency_code' => 'TRY', 'name' => 'John', 'surname' => 'Doe'], $token);
check($res['status_code'] === 100 && strpos($res['link'], "$base/__sandbox/link/") === 0 && $res['order_id'] !== '', 'purchase/link');
$link = $res['link'];
$page = file_get_contents($link);
check(strpos($page, 'This is a sandbox') !== false && strpos($page, 'Pay 250.00 TRY') !== false, 'the link page');
[$action] = hiddenFields($page);
$page = post($origin . $action, ['cc_holder_name' => 'John Doe', 'cc_no' => '4355084355084358', 'expiry_month' => '12',
    'expiry_year' => '2099', 'cvv' => '123', 'installments_number' => '2']);
[$action, $fields] = hiddenFields($page);
check(isset($fields['order_id']) && strpos($page, '4355084355084358') === false, 'the link page takes the card and answers the challenge');
[$action, $ret] = hiddenFields(post($origin . $action, $fields + ['decision' => 'approve']));
$h = hashFields($ret['hash_key'] ?? '', $appSecret);
check($action === 'https://merchant.test/ok' && $h !== null && $h[0] === '1' && (float)$h[1] == 250 && $h[2] === $invoice, 'link payment: valid return');
[$code, $res] = call("$base/api/checkstatus", ['merchant_key' => $merchantKey, 'invoice_id' => $invoice,
    'hash_key' => hashkey_make($appSecret, "$invoice|$merchantKey")], $token);
check($res['status_code'] === 100 && $res['transaction_status'] === 'Completed' && $res['installment'] === 2, 'checkstatus after the link payment');
