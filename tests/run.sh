#!/usr/bin/env bash
# README's test command: install what the tests need, from the system and from PyPI, then run them.
# System: Debian's chromium and chromium-driver (the HTML nomogram's browser test) and a Java runtime (the
# JPMML evaluator that scores exported PMML), its compiler (the small program that prints Weka's probabilities
# with every digit) and Weka (its example ARFF files, and its NaiveBayes, AODE and TAN as references), installed with apt-get when missing, as root or with sudo.
# Python: the project with its `test` extra, in the Python that runs this script. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
[ -e /usr/share/java/weka.jar ] || missing+=(weka)
if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
        echo "tests/run.sh: the tests need Debian's ${missing[*]}; install them as root" \
             "(apt-get install ${missing[*]}), then run this again" >&2
        exit 2
    fi
    echo "installing Debian's ${missing[*]} for the tests"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python -m pip install -q -e '.[test]'
exec python -m pytest -q "$@"
