#!/usr/bin/env bash
# bundle.sh packs embreecmp, the accel benchmarks and raypipe bench with
# the shared libraries they load (Embree, TBB, the C and C++ runtimes and
# their loader) into one tarball that runs on an x86-64 Linux machine
# with no packages installed: the machines this project borrows to
# measure multi-core scaling have no package registry and only minutes
# to spend. Run it here (with libembree-dev and assimp-testmodels
# installed), copy the tarball there, unpack it and run its run.sh; the
# results land in $OUT (default ./out). The "On 16 cores" tables of
# docs/against-embree.md came from such runs.
#
#   cmd/embreecmp/bundle.sh [tarball]      (default /tmp/raypipe-scaling.tar.gz)
#
# BASES="41c61ea 997cda6" also packs the accel test binary of each of
# those commits (built from a temporary worktree), and run.sh then times
# BenchmarkBuild on N threads with each of them and the working tree's in
# turn, rounds alternated, into ab-build.txt: A/B ratios measured on the
# same machine in the same minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/raypipe-scaling.tar.gz}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/lib" "$dir/models"
go build -tags embree -o "$dir/embreecmp" ./cmd/embreecmp
CGO_ENABLED=0 go build -o "$dir/raypipe" ./cmd/raypipe
go test -c -o "$dir/accel.test" ./accel
for base in ${BASES:-}; do
  git rev-parse -q --verify "$base^{commit}" >/dev/null || { echo "bundle.sh: BASES: $base is not a commit" >&2; exit 1; }
  wt="$dir/worktree-$base"
  git worktree add -q --detach "$wt" "$base"
  built=0
  (cd "$wt" && go test -c -o "$dir/accel-$base.test" ./accel) && built=1
  git worktree remove --force "$wt"
  [ "$built" = 1 ] || { echo "bundle.sh: BASES: the accel tests of $base do not build" >&2; exit 1; }
done
# Every library embreecmp loads, and the loader that loads them.
ldd "$dir/embreecmp" | awk '$3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}' | while read -r lib; do
  cp -L "$lib" "$dir/lib/"
done
for f in libtbbmalloc.so.2; do # loaded by TBB at run time, if present
  [ -e "/lib/x86_64-linux-gnu/$f" ] && cp -L "/lib/x86_64-linux-gnu/$f" "$dir/lib/"
done
m=/usr/share/assimp/models
cp "$m/OBJ/spider.obj" "$m/OBJ/WusonOBJ.obj" "$m/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb" "$dir/models/"
git rev-parse --short HEAD >"$dir/commit"
cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the scaling set on this machine's cores: three embreecmp runs of
# the README's scenes, two with Embree capped at AVX2, BenchmarkBuild,
# BenchmarkBuildPhases (the CAD engine's too: BenchmarkBuildPhasesOfMesh;
# with each stage's processor time, RAYPIPE_BENCH_CPU; and its spatial-
# split build's chain of top-level nodes, RAYPIPE_BENCH_CHAIN) and
# BenchmarkUpdatePhases on 1 to N threads, and raypipe bench on 1 and N. Each step is time-boxed
# and writes its own file under $OUT as it goes; SCENES replaces
# embreecmp's scene flags (for a quick try), RUNS and AVX2_RUNS the
# number of embreecmp runs (3 and 2), and SKIP lists steps to leave out
# (embreecmp, steady, ab, scaling, phases, gogc, bench); with PACK set,
# the outputs end up in one file, $OUT/results.tgz (a lent machine's
# tool brings back eight files at most). The steady step
# runs the whole set with -steady, raypipe's fast trace against Embree
# medium: each tracer's rate per thread on 1 and N locked threads, twice
# each, beside the table's rows (on the 16-core machines one thread's
# speed swings between windows, so the steady rows are the ones to
# compare; docs/against-embree.md, On 16 cores).
cd "$(dirname "$0")"
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
L=$PWD/lib M=$PWD/models T=$(nproc)
ec() { timeout 200 "$L"/ld-linux-x86-64.so.2 --library-path "$L" ./embreecmp "$@"; }
{ echo "commit $(cat commit)"; nproc; lscpu; free -g; } >"$OUT/machine.txt" 2>&1
S=${SCENES:-"-sizes 10k,100k,1m,2m -obj $M/spider.obj,$M/WusonOBJ.obj -mesh $M/2CylinderEngine.glb -instances 1k,10k"}
R="-tracers embree-medium,raypipe-fastbuild,raypipe-fasttrace -threads $T"
step() { case " ${SKIP:-} " in *" $1 "*) return 1 ;; esac; }
if step embreecmp; then
  for i in $(seq "${RUNS:-3}"); do
    chk=false; [ "$i" = 1 ] && chk=true
    ec $S $R -check=$chk >"$OUT/embreecmp-$i.txt" 2>&1
  done
  for i in $(seq "${AVX2_RUNS:-2}"); do
    ec $S $R -check=false -embree-isa avx2 >"$OUT/embreecmp-avx2-$i.txt" 2>&1
  done
fi
step steady && ec $S -tracers embree-medium,raypipe-fasttrace -threads "$T" -check=false -steady 150ms -steady-threads "1,$T,1,$T" >"$OUT/steady.txt" 2>&1
if step ab && ls accel-*.test >/dev/null 2>&1; then
  for round in 1 2 3; do
    for t in accel-*.test accel.test; do
      echo "== $t round $round"
      timeout 60 ./$t -test.run '^$' -test.bench 'Build$/.*/(100k|1M)|BuildSmall/.*/16000|SpatialSplits/build' -test.benchtime 10x -test.cpu "$T"
    done
  done >"$OUT/ab-build.txt" 2>&1
fi
step scaling && timeout 120 ./accel.test -test.run '^$' -test.bench 'Build$/.*/(100k|1M)|SpatialSplits/build' -test.benchtime 10x -test.cpu "1,4,8,$T" >"$OUT/build-scaling.txt" 2>&1
step phases && RAYPIPE_BENCH_CPU=1 RAYPIPE_BENCH_MESH=$M/2CylinderEngine.glb timeout 150 ./accel.test -test.run '^$' -test.bench 'BuildPhases' -test.benchtime 10x -test.cpu "1,4,8,$T" >"$OUT/build-phases.txt" 2>&1
step phases && RAYPIPE_BENCH_CHAIN=1 RAYPIPE_BENCH_MESH=$M/2CylinderEngine.glb timeout 60 ./accel.test -test.run '^$' -test.bench 'BuildPhasesOfMesh/.*/fasttrace' -test.benchtime 30x -test.cpu "1,4,8,$T" >"$OUT/build-chain.txt" 2>&1
step phases && timeout 120 ./accel.test -test.run '^$' -test.bench 'UpdatePhases' -test.benchtime 200ms -test.cpu "1,2,4,8,$T" >"$OUT/update-phases.txt" 2>&1
if step gogc; then
  for g in 100 400 off; do
    GOGC=$g timeout 60 ./accel.test -test.run '^$' -test.bench 'Build$/.*/100k' -test.benchtime 20x -test.cpu "$T" >"$OUT/build-gogc-$g.txt" 2>&1
  done
fi
if step bench; then
  timeout 60 ./raypipe bench >"$OUT/bench-$T.txt" 2>&1
  GOMAXPROCS=1 timeout 120 ./raypipe bench >"$OUT/bench-1.txt" 2>&1
fi
ls -l "$OUT"
if [ -n "${PACK:-}" ]; then
  tmp=$(mktemp) && tar czf "$tmp" -C "$OUT" . && find "$OUT" -type f -delete && mv "$tmp" "$OUT/results.tgz"
fi
RUN
chmod +x "$dir/run.sh"
tar czf "$out" -C "$dir" .
echo "$out: $(du -h "$out" | cut -f1); unpack it on the machine and run ./run.sh"
