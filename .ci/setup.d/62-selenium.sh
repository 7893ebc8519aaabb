# Selenium (the WebDriver client) for the dashboard's real-browser test; the
# browser itself, Debian's chromium and chromium-driver, comes from 05-debian.sh.
"$VETRO_CI_VENV/bin/python" -c 'import selenium' 2>/dev/null || ci_pip selenium==4.27.1
export VETRO_SELENIUM_PYTHON="$VETRO_CI_VENV/bin/python"
