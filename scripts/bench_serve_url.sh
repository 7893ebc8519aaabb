# Sourced by the service benchmarks: wait_for_url OUT waits (up to 20 s) for
# the `vetro serve` writing to OUT to say it is listening, then sets URL.
wait_for_url() {
    local out=$1
    for _ in $(seq 400); do
        grep -q "listening on" "$out" 2>/dev/null && break
        sleep 0.05
    done
    URL=$(grep -o 'http://[0-9.:]*' "$out")
}
