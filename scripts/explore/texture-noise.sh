#!/usr/bin/env bash
# texture-noise.sh - a one-off diagnostic kept for the record: builds this
# tree and b1618e4 (checked out by hand as oldtree/ beside
# scripts/, `git worktree add oldtree b1618e4`) for sm_90, then times the same
# bank sweep and repeats the texture column walk 4 times with each binary, to
# show the family move changed neither (results/h200/texture/noise-2026-12-02/).
# Run on a GPU machine with OUT set and .deps/ in the checkout.
set -u
cd "$(dirname "$0")/../.."
R=$OUT; mkdir -p $R
( make -j16 ARCH=90 DEPS=.deps memprobe > $R/build-new.log 2>&1 ) &
( cd oldtree && make -j16 ARCH=90 DEPS=../.deps memprobe > $R/build-old.log 2>&1 ) &
wait
for b in new old; do
  bin=./memprobe; [ $b = old ] && bin=oldtree/memprobe
  for k in 1 2 3 4; do
    $bin texture --source global,ldg --access column --size 4096 --warmup 2 --runs 10 -o $R/tex-$b-$k.csv > /dev/null 2>&1
  done
  s=$(date +%s.%N)
  $bin bank --op ld,st --width 4,8,16 --stride 1,2,3,4,8,16,32 --group 1,2,4,32 --period 32,16 --iterations 4096 --runs 3 -o $R/bank-$b.csv > /dev/null 2>&1
  e=$(date +%s.%N)
  echo "$b bank-patterns-subset $(awk -v a=$s -v b=$e "BEGIN{print b-a}") s" >> $R/times.txt
done
for f in $R/tex-*.csv; do awk -F, -v f=$(basename $f) 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next}{print f, $c["config"], $c["sectors_per_request"], $c["model_match"]}' $f; done > $R/tex.txt
cat $R/times.txt $R/tex.txt
