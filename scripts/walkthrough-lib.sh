# Two helpers for the README's quick start and walk-through, to `source` in bash or zsh:
#   expect STATUS curl …   runs the curl command, prints the answer's body (and headers with -i) on stdout,
#                          and on stderr a ✓ line, or a ✗ line and exit status 1 when the status differs;
#   field NAME             prints one member of the JSON object read from stdin (exit 1 when it is absent).
# scripts/quick-start-check.js runs the README's blocks with `set -e`, so the first ✗ stops them there.

expect() {
  local want=$1 out status url="" method="" arg
  shift
  for arg in "$@"; do
    case $arg in http://* | https://*) [ -z "$url" ] && url=$arg ;; esac
  done
  # The method for the ✓/✗ line only; never the headers, which carry tokens.
  method=GET
  case " $* " in *" -X DELETE "*) method=DELETE ;; *" -X "*) method=OTHER ;; *" -d "* | *" --data"*) method=POST ;; esac
  out=$("$@" -w '\n%{http_code}') || {
    printf '✗ %s %s: curl failed (exit %s); is npm start running?\n' "$method" "$url" "$?" >&2
    return 1
  }
  status=${out##*$'\n'}
  printf '%s\n' "${out%$'\n'*}"
  if [ "$status" != "$want" ]; then
    printf '✗ %s %s: expected %s, got %s\n' "$method" "$url" "$want" "$status" >&2
    return 1
  fi
  printf '✓ %s %s: %s\n' "$method" "$url" "$status" >&2
}

field() {
  node -e '
    let text = "";
    process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
      const value = JSON.parse(text)[process.argv[1]];
      if (value === undefined) {
        process.stderr.write(`✗ the answer has no ${process.argv[1]}\n`);
        process.exit(1);
      }
      console.log(value);
    });' "$1"
}
