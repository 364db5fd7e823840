-- wrk script: every request is one small JSON-RPC 2.0 call, `rpc.discover`, sent as
-- POST /rpc with a JSON body. Used by scripts/bench-http.sh; the path comes from the URL
-- given to wrk, so point it at http://HOST:PORT/rpc.
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}'
wrk.headers["Content-Type"] = "application/json"
