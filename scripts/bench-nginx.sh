# Sourced by scripts/bench and scripts/link-order: nginx on loopback over "$WORK/www", HTTP/1.1
# on $PORT and HTTPS with HTTP/2 on $TLS_PORT (a self-signed certificate for 127.0.0.1 and
# 127.0.0.2, $CERT), both on 127.0.0.1 and 127.0.0.2; PUT under /up/ stores the body (WebDAV).
#   start_loopback_nginx PROBE   PROBE: a path under www/ fetched until nginx answers
# Sets PORT, TLS_PORT, CERT and NGINX_PID (the caller stops it); needs NGINX, curl, openssl and
# "$WORK/nginx". Returns 2 when nginx does not answer.
# A port nothing listens on now (python3 asks the kernel; without it, a random high port).
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2> /dev/null \
        || echo $((20000 + RANDOM % 20000))
}

start_loopback_nginx() {
    local probe=$1
    PORT=$(free_port)
    TLS_PORT=$(free_port)
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1,IP:127.0.0.2" \
        -keyout "$WORK/nginx/key.pem" -out "$WORK/nginx/cert.pem" > /dev/null 2>&1
    CERT="$WORK/nginx/cert.pem"
    cat > "$WORK/nginx/nginx.conf" <<CONF
user root;
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000;
    keepalive_timeout 65;
    default_type application/octet-stream;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    server {
        listen 127.0.0.1:$PORT;
        listen 127.0.0.2:$PORT;
        root $WORK/www;
        # cliupload: PUT stores the body under www/up/ (WebDAV PUT only)
        location /up/ {
            dav_methods PUT;
            create_full_put_path on;
            client_max_body_size 0;
        }
    }
    # HTTPS with HTTP/2 (ALPN) for the clih2 case, a self-signed certificate for 127.0.0.1
    server {
        listen 127.0.0.1:$TLS_PORT ssl http2;
        listen 127.0.0.2:$TLS_PORT ssl http2;
        ssl_certificate $WORK/nginx/cert.pem;
        ssl_certificate_key $WORK/nginx/key.pem;
        http2_max_requests 1000000;
        root $WORK/www;
    }
}
CONF
    "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
    NGINX_PID=$!
    for _ in $(seq 50); do
        curl -s -o /dev/null "http://127.0.0.1:$PORT/$probe" && break
        sleep 0.1
    done
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/$probe" || { echo "nginx did not start" >&2; cat "$WORK/nginx/error.log" >&2; return 2; }
}
