#!/bin/sh
# Installs nginx and serves a one-page site: deploy-web.sh PORT SITE
set -e
port="$1"
site="$2"
apt-get update -q && apt-get install -y -q nginx
mkdir -p "/var/www/$site"
echo "<h1>$site</h1>" > "/var/www/$site/index.html"
cat > /etc/nginx/sites-enabled/default <<CONF
server { listen $port; root /var/www/$site; }
CONF
systemctl restart nginx
echo "serving $site on port $port"
