#!/usr/bin/env bash
# Runs the JMH benchmarks of one module from its test classes.
#
# usage: scripts/jmh.sh MODULE [JMH args...]
#   e.g. scripts/jmh.sh ingest -f 1 -wi 3 -i 5 -w 2s -r 2s DecodeBenchmark
#
# Benchmarks live in MODULE/src/test/java (beside the code they measure); jmh-generator-annprocess
# on the test classpath generates META-INF/BenchmarkList during test-compile. MVN_OFFLINE=1 adds -o
# (works once maven-dependency-plugin and its dependencies are in ~/.m2).
# By default (-am) the modules MODULE depends on are compiled from this tree and put on the
# classpath as target/classes. JMH_ALSO_MAKE=0 drops -am, so they come from ~/.m2 instead, as
# last installed (useful while someone else is editing them; stale if they changed since).
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 MODULE [JMH args...]" >&2
  exit 2
fi
module=$1
shift

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [[ ! -d "$module" ]]; then
  echo "no module directory $root/$module" >&2
  exit 2
fi

offline=()
if [[ "${MVN_OFFLINE:-0}" == 1 ]]; then
  offline=(-o)
fi

also_make=(-am)
if [[ "${JMH_ALSO_MAKE:-1}" == 0 ]]; then
  also_make=()
fi

cpfile="$root/$module/target/jmh.classpath"
# One reactor invocation: with -am, the modules MODULE depends on are resolved to their freshly
# compiled target/classes (the reactor builds them first, and MODULE, built last, writes the
# classpath file last), not to possibly stale jars in ~/.m2, so no `mvn install` is needed.
mvn -q -B "${offline[@]}" -pl "$module" "${also_make[@]}" test-compile \
  dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cpfile"

if [[ ! -f "$module/target/test-classes/META-INF/BenchmarkList" ]]; then
  echo "no META-INF/BenchmarkList in $module/target/test-classes: is jmh-generator-annprocess" \
    "on the test classpath?" >&2
  exit 1
fi

cd "$module"
exec java -cp "target/test-classes:target/classes:$(cat "$cpfile")" org.openjdk.jmh.Main "$@"
