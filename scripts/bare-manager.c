/*
 * The least a UCI manager can do, as a floor for scripts/bench-manager:
 * two threads, each playing games between two engines, every move sent as
 * `position startpos moves ...` and `go` in one write(2), every line the
 * engine writes read as it comes (poll(2) with a deadline, then read(2)),
 * until `bestmove`. It knows no rules: a game ends at `bestmove (none)` or
 * after MAX_PLIES plies, and nothing is checked, parsed or recorded.
 *
 *     bare-manager ENGINE GAMES BASE_MS INC_MS   (a clock: BASE_MS+INC_MS a move)
 *     bare-manager ENGINE GAMES nodes N          (N nodes a move)
 *
 * Prints the plies played; its CPU is measured from outside.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PLIES 200

typedef struct {
    int in, out;
    char buf[1 << 16];
    size_t len;
} Engine;

static const char *program;
static long base_ms, inc_ms, nodes;
static int games_left;
static long plies;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void start(Engine *e) {
    int to[2], from[2];
    if (pipe(to) || pipe(from)) exit(2);
    if (fork() == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[1]);
        close(from[0]);
        execl(program, program, (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    e->in = to[1];
    e->out = from[0];
    e->len = 0;
}

static void say(Engine *e, const char *text) {
    size_t n = strlen(text);
    if (write(e->in, text, n) != (ssize_t)n) exit(3);
}

/* Reads lines until one starts with `word`; copies it into `line`. */
static void wait_for(Engine *e, const char *word, char *line, size_t cap) {
    size_t w = strlen(word);
    for (;;) {
        char *nl;
        while ((nl = memchr(e->buf, '\n', e->len)) != NULL) {
            size_t n = (size_t)(nl - e->buf);
            int hit = n >= w && memcmp(e->buf, word, w) == 0;
            if (hit) {
                n = n < cap - 1 ? n : cap - 1;
                memcpy(line, e->buf, n);
                line[n] = 0;
            }
            e->len -= (size_t)(nl - e->buf) + 1;
            memmove(e->buf, nl + 1, e->len);
            if (hit) return;
        }
        struct pollfd p = {e->out, POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0) exit(4);
        ssize_t r = read(e->out, e->buf + e->len, sizeof e->buf - e->len);
        if (r <= 0) exit(5);
        e->len += (size_t)r;
    }
}

static void *play(void *unused) {
    (void)unused;
    Engine engines[2];
    static __thread char line[4096], position[MAX_PLIES * 6 + 64], command[sizeof position + 128];
    for (int i = 0; i < 2; i++) {
        start(&engines[i]);
        say(&engines[i], "uci\n");
        wait_for(&engines[i], "uciok", line, sizeof line);
    }
    for (;;) {
        pthread_mutex_lock(&lock);
        int game = games_left--;
        pthread_mutex_unlock(&lock);
        if (game <= 0) break;
        for (int i = 0; i < 2; i++) {
            say(&engines[i], "ucinewgame\nisready\n");
            wait_for(&engines[i], "readyok", line, sizeof line);
        }
        strcpy(position, "position startpos moves");
        long clock[2] = {base_ms, base_ms};
        for (int ply = 0; ply < MAX_PLIES; ply++) {
            Engine *mover = &engines[(game + ply) % 2];
            if (nodes > 0)
                snprintf(command, sizeof command, "%s\ngo nodes %ld\n", position, nodes);
            else
                snprintf(command, sizeof command, "%s\ngo wtime %ld btime %ld winc %ld binc %ld\n", position,
                         clock[0], clock[1], inc_ms, inc_ms);
            long asked = now_ms();
            say(mover, command);
            wait_for(mover, "bestmove", line, sizeof line);
            long left = clock[ply % 2] - (now_ms() - asked) + inc_ms;
            clock[ply % 2] = left > 1 ? left : 1;
            char move[16] = "";
            sscanf(line, "bestmove %15s", move);
            if (strcmp(move, "(none)") == 0 || move[0] == 0) break;
            strcat(position, " ");
            strcat(position, move);
            __atomic_fetch_add(&plies, 1, __ATOMIC_RELAXED);
        }
    }
    for (int i = 0; i < 2; i++) say(&engines[i], "quit\n");
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: bare-manager ENGINE GAMES BASE_MS INC_MS | ENGINE GAMES nodes N\n");
        return 1;
    }
    program = argv[1];
    games_left = atoi(argv[2]);
    if (strcmp(argv[3], "nodes") == 0) {
        nodes = atol(argv[4]);
    } else {
        base_ms = atol(argv[3]);
        inc_ms = atol(argv[4]);
    }
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) pthread_create(&threads[i], NULL, play, NULL);
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    while (wait(NULL) > 0) {
    }
    printf("%ld\n", plies);
    return 0;
}
