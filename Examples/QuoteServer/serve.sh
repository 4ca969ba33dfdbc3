# Sourced by loadtest.sh and compare.sh: starts the release build of quote-server on loopback and
# waits until it accepts connections.
#
#   serve NAME PORT BACKEND-PORT LOG   sets $server to its process id; it is killed on exit
serve() {
  local name=$1 port=$2 backend=$3 log=$4
  local bin
  bin=$(swift build -c release --show-bin-path)/QuoteServer
  command -v wrk >/dev/null || { echo "$name: wrk is not installed (apt-get install wrk)"; exit 1; }
  "$bin" "$port" "$backend" >"$log" 2>&1 &
  server=$!
  trap 'kill "$server" 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
}
