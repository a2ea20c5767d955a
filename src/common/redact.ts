/**
 * Defence in depth for log lines and unexpected error messages: masks anything shaped like a
 * secret (account keys, shared access keys, SAS signatures, function keys in query strings).
 */
const SECRET_PATTERNS: RegExp[] = [
  /((?:SharedAccessKey|AccountKey|AccessKey|SharedAccessSignature)\s*=\s*)[^;"'\s]+/gi,
  /([?&](?:sig|code|se|sp|sv|skoid|sktid|skt|ske|sks|skv|st|spr|srt|ss)=)[^&"'\s]+/gi,
];

export function redactSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((current, pattern) => current.replace(pattern, "$1***"), text);
}
