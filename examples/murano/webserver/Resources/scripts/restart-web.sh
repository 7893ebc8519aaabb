#!/bin/sh
set -e
systemctl restart nginx
echo restarted
