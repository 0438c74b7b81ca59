/* bpf_loader: loads one BPF object with libbpf, registers its struct_ops congestion controls and
 * attaches its sockops programs to a cgroup v2; undoes both when told to stop (docs/linux.md,
 * "cclab_tcpgt"). Used for algorithms whose congestion control shares a map with a sockops
 * program (bpftool struct_ops register loads the object but attaches no sockops program).
 *
 *     bpf_loader OBJECT CGROUP_DIR
 *
 * It first joins CGROUP_DIR (so that removing the cgroup's processes removes it too) and asks the
 * kernel for SIGTERM when its parent dies. Prints "registered NAME id N" per struct_ops map and
 * then "ready". On SIGTERM/SIGINT/SIGHUP (or its parent's death) it detaches the sockops programs
 * (their cgroup links), unregisters the struct_ops, prints "counters V1 V2 ..." (the object's
 * .bss as 64-bit words) and "done", and exits 0. The cgroup links are kernel bpf_links held by
 * this process: even SIGKILL detaches them; the struct_ops registration (libbpf 1.1 has no
 * .struct_ops.link) is what a SIGKILL leaves, and the testbed's cleanup removes it by name.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MAX_LINKS 16

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int join_cgroup(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%d\n", getpid());
	return fclose(f) ? -errno : 0;
}

static void print_counters(struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		size_t n = strlen(name);
		unsigned long long buf[64] = {0};
		__u32 key = 0;
		size_t size = bpf_map__value_size(map), i;

		if (n < 4 || strcmp(name + n - 4, ".bss") || size > sizeof(buf))
			continue;
		if (bpf_map_lookup_elem(bpf_map__fd(map), &key, buf))
			continue;
		printf("counters");
		for (i = 0; i < size / 8; i++)
			printf(" %llu", buf[i]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct bpf_link *links[MAX_LINKS];
	int n_links = 0, cg, err, i;
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	pid_t parent = getppid();
	struct sigaction sa = {0};
	sigset_t block, old;

	if (argc != 3) {
		fprintf(stderr, "usage: bpf_loader OBJECT CGROUP_DIR\n");
		return 2;
	}
	/* Blocked until sigsuspend, so that a stop request cannot fall between the test and the wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent) /* the parent died before the request */
		return 1;
	err = join_cgroup(argv[2]);
	if (err) {
		fprintf(stderr, "cannot join %s: %s\n", argv[2], strerror(-err));
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (libbpf_get_error(obj)) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "cannot load %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	cg = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		fprintf(stderr, "cannot open %s: %s\n", argv[2], strerror(errno));
		goto fail;
	}
	bpf_object__for_each_program(prog, obj) {
		if (bpf_program__type(prog) != BPF_PROG_TYPE_SOCK_OPS || n_links >= MAX_LINKS)
			continue;
		links[n_links] = bpf_program__attach_cgroup(prog, cg);
		if (libbpf_get_error(links[n_links])) {
			fprintf(stderr, "cannot attach %s to %s\n", bpf_program__name(prog), argv[2]);
			goto fail;
		}
		n_links++;
	}
	bpf_object__for_each_map(map, obj) {
		struct bpf_map_info info = {0};
		__u32 len = sizeof(info);

		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS || n_links >= MAX_LINKS)
			continue;
		links[n_links] = bpf_map__attach_struct_ops(map);
		if (libbpf_get_error(links[n_links])) {
			fprintf(stderr, "cannot register %s\n", bpf_map__name(map));
			goto fail;
		}
		n_links++;
		bpf_obj_get_info_by_fd(bpf_map__fd(map), &info, &len);
		printf("registered %s id %u\n", bpf_map__name(map), info.id);
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	for (i = 0; i < n_links; i++)
		bpf_link__destroy(links[i]);
	print_counters(obj);
	bpf_object__close(obj);
	printf("done\n");
	fflush(stdout);
	return 0;
fail:
	for (i = 0; i < n_links; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	return 1;
}
