/*
 * sweep_devices.c - `memprobe sweep FILE --devices all|0,1,..`: one sweep
 * over every GPU of a node. The configurations are dealt round robin over
 * the devices (mp_sweep_shard); each device gets a worker process, which
 * is memprobe itself re-executed as
 *
 *     memprobe sweep FILE --device D --shard K/N -o OUT.devD.part
 *                   [--resume-from OUT] [--counters ..] [--batch ..]
 *                   [--launches ..] [--sample-us ..]
 *
 * so each has its own CUDA context and profiler session, and writes its
 * own part file (one write(2) per row, as every sweep does). When the
 * workers are done the parent appends the part files' rows to OUT and
 * removes them: one CSV, the device_id column telling the rows apart.
 *
 * Killed midway: a worker dies with its parent (PR_SET_PDEATHSIG), and
 * each part file holds whole rows. The next run first appends any part
 * files left over to OUT; with --resume the workers then skip what OUT
 * holds. A worker that fails or is killed makes the parent exit nonzero
 * after merging the others' rows, saying to rerun with --resume.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "device.h"
#include "subprocess.h"
#include "readfile.h"
#include "sweep_devices.h"

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int mp_csv_merge_part(const char *out, const char *part, int *rows,
                      char *err, size_t errlen)
{
    return mp_csv_append_rows(out, part, 1, rows, err, errlen);
}

int mp_csv_append_rows(const char *out, const char *part, int remove_part,
                       int *rows, char *err, size_t errlen)
{
    *rows = 0;
    size_t plen;
    char *p = mp_read_file(part, &plen, NULL, 0);
    if (!p)
        return 0;   /* no part file: nothing to merge */
    char *eol = strchr(p, '\n');
    char *last = strrchr(p, '\n');
    if (!eol) {     /* empty, or a header cut short: nothing measured */
        free(p);
        if (remove_part)
            unlink(part);
        return 0;
    }
    size_t hlen = (size_t)(eol - p) + 1;
    size_t olen = 0;
    char *o = mp_read_file(out, &olen, NULL, 0);
    int fd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
        free(o);
        free(p);
        return -1;
    }
    int rc = 0;
    if (!o || olen == 0) {
        rc = write_all(fd, p, hlen);
    } else if (olen < hlen || memcmp(o, p, hlen) != 0) {
        snprintf(err, errlen, "%s and %s have different headers (written "
                 "by different memprobe versions?): not merged", part, out);
        rc = -2;
    }
    /* Whole rows only: up to the last line end. */
    size_t body = (size_t)(last - eol);
    if (rc == 0 && body > 0)
        rc = write_all(fd, eol + 1, body);
    if (rc == -1)
        snprintf(err, errlen, "appending %s to %s: %s", part, out,
                 strerror(errno));
    if (close(fd) && rc == 0) {
        snprintf(err, errlen, "closing %s: %s", out, strerror(errno));
        rc = -1;
    }
    if (rc == 0) {
        for (char *c = eol + 1; c <= last; c++)
            *rows += *c == '\n';
        if (remove_part)
            unlink(part);
    }
    free(o);
    free(p);
    return rc ? -1 : 0;
}

void mp_sweep_part_path(const char *out, int device, char *buf, size_t len)
{
    snprintf(buf, len, "%s.dev%d.part", out, device);
}

int mp_devices_parse(const char *text, int *devs, int max, char *err,
                     size_t errlen)
{
    int count = mp_device_count();
    if (!strcmp(text, "all")) {
        if (count <= 0)
            return 0;   /* no GPU: the caller reports it */
        int n = count < max ? count : max;
        for (int i = 0; i < n; i++)
            devs[i] = i;
        return n;
    }
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || d < 0 || d > 63) {
            snprintf(err, errlen, "--devices: '%s' is not all or a list of "
                     "device ordinals (0,1,..)", text);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (devs[i] == d) {
                snprintf(err, errlen, "--devices: device %ld given twice",
                         d);
                return -1;
            }
        if (count >= 0 && d >= count) {
            snprintf(err, errlen, "--devices: device %ld is not visible (%d "
                     "GPU%s)", d, count, count == 1 ? "" : "s");
            return -1;
        }
        if (n == max) {
            snprintf(err, errlen, "--devices: more than %d devices", max);
            return -1;
        }
        devs[n++] = (int)d;
        p = *end ? end + 1 : end;
    }
    if (n == 0) {
        snprintf(err, errlen, "--devices: empty list");
        return -1;
    }
    return count < 0 ? 0 : n;   /* no GPU at all: the caller reports it */
}

int mp_merge_leftover_parts(const char *out, int quiet)
{
    char part[4096], err[1024];
    int total = 0;
    for (int d = 0; d < 64; d++) {
        mp_sweep_part_path(out, d, part, sizeof part);
        int rows;
        if (mp_csv_merge_part(out, part, &rows, err, sizeof err)) {
            fprintf(stderr, "memprobe: %s\n", err);
            return -1;
        }
        if (rows && !quiet)
            fprintf(stderr, "memprobe: %d row%s of device %d from an earlier "
                    "run appended to %s\n", rows, rows == 1 ? "" : "s", d,
                    out);
        total += rows;
    }
    return total;
}

/* Starts the worker of the i-th device: `memprobe sweep` on its shard,
 * writing the part file `part`, its output going to `log`. Returns its
 * pid (fork failing: exit 1). */
static pid_t start_worker(const mp_sweep_devices_args *a, int i,
                          pid_t parent, const char *self, const char *part,
                          const char *log)
{
    int d = a->devices[i];
    char dev[16], shard[32], batch[16], launches[16], sample_us[16];
    snprintf(dev, sizeof dev, "%d", d);
    /* Shard i of the node within shard k of n of the fleet: the
     * indices g with g % n == k, then every ndevices-th of those. */
    snprintf(shard, sizeof shard, "%d/%d",
             a->shard_k + a->shard_n * i, a->shard_n * a->ndevices);
    snprintf(batch, sizeof batch, "%d", a->batch);
    snprintf(launches, sizeof launches, "%d", a->launches);
    snprintf(sample_us, sizeof sample_us, "%d", a->sample_us);
    const char *argv[24];
    int n = 0;
    argv[n++] = self;
    argv[n++] = "sweep";
    argv[n++] = a->file;
    argv[n++] = "--device";
    argv[n++] = dev;
    argv[n++] = "--shard";
    argv[n++] = shard;
    argv[n++] = "-o";
    argv[n++] = part;
    argv[n++] = "--counters";
    argv[n++] = a->counters;
    argv[n++] = "--batch";
    argv[n++] = batch;
    argv[n++] = "--launches";
    argv[n++] = launches;
    argv[n++] = "--sample-us";
    argv[n++] = sample_us;
    if (a->resume) {
        argv[n++] = "--resume-from";
        argv[n++] = a->output;
    }
    if (a->check_model)
        argv[n++] = "--check-model";
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "memprobe: fork: %s\n", strerror(errno));
        exit(MP_EXIT_FAIL);
    }
    if (pid == 0) {
        /* Die with the parent; the rows written so far stay. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(MP_EXIT_FAIL);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(self, (char *const *)argv);
        fprintf(stderr, "memprobe: cannot run %s: %s\n", self,
                strerror(errno));
        _exit(127);
    }
    fprintf(stderr, "memprobe: device %d: worker %ld, shard %s, log %s\n",
            d, (long)pid, shard, log);
    return pid;
}

/* Waits for the i-th device's worker and merges its part file into the
 * output, saying how it went: its exit code (0 when it and the merge
 * went well; the log is then removed). */
static int finish_worker(const mp_sweep_devices_args *a, int i, pid_t pid,
                         const char *part, const char *log)
{
    char err[1024];
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    int rows = 0;
    if (mp_csv_merge_part(a->output, part, &rows, err, sizeof err)) {
        fprintf(stderr, "memprobe: %s\n", err);
        code = code ? code : MP_EXIT_FAIL;
    }
    if (code == 0) {
        fprintf(stderr, "memprobe: device %d: %d rows\n", a->devices[i],
                rows);
        unlink(log);
    } else {
        fprintf(stderr, "memprobe: device %d: worker %s %d after %d "
                "rows (log %s); rerun with --resume to finish\n",
                a->devices[i], WIFEXITED(st) ? "exited with" :
                "was killed by signal", WIFEXITED(st) ? code
                : WTERMSIG(st), rows, log);
    }
    return code;
}

int mp_sweep_on_devices(const mp_sweep_devices_args *a)
{
    if (mp_merge_leftover_parts(a->output, 0) < 0)
        return MP_EXIT_USAGE;
    pid_t pids[64];
    char parts[64][4096], logs[64][4200];
    pid_t parent = getpid();
    const char *self = mp_self_path();
    for (int i = 0; i < a->ndevices; i++) {
        mp_sweep_part_path(a->output, a->devices[i], parts[i],
                           sizeof parts[i]);
        snprintf(logs[i], sizeof logs[i], "%s.dev%d.log", a->output,
                 a->devices[i]);
        pids[i] = start_worker(a, i, parent, self, parts[i], logs[i]);
    }
    int rc = MP_EXIT_OK;
    for (int i = 0; i < a->ndevices; i++) {
        int code = finish_worker(a, i, pids[i], parts[i], logs[i]);
        if (code != 0 && rc == MP_EXIT_OK)
            rc = code > 5 ? MP_EXIT_FAIL : code;
    }
    return rc;
}
