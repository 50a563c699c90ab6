<?php
// Encodes webhook bodies as a PHP merchant or gateway would, for the Go
// cross-check: one JSON object of fields per input line in, one line
// {"form": "...", "json": "..."} out, made with http_build_query and
// json_encode.
while (($line = fgets(STDIN)) !== false) {
    $line = rtrim($line, "\r\n");
    if ($line === '') {
        continue;
    }
    $fields = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
    $out = ['form' => http_build_query($fields), 'json' => json_encode($fields, JSON_THROW_ON_ERROR)];
    echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR), "\n";
}
