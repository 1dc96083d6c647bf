/*
 * A fake libdcmi.so for tests and the sandbox. It answers the DCMI calls of dcmi_interface_api.h
 * from a text file named by VNPU_FAKE_DCMI_CONFIG, re-read on every call so that a test can change
 * a chip's health or usage while a device plugin is running. Lines (blank and '#' lines ignored):
 *
 *   device card=0 device=0 logic=0 type=npu name=910B3 die=0A1B2C3D-0-0-0-1 aicore=20
 *          memory_mb=65536 memory_used_mb=3445 hbm=1 health=0 aicore_util=12 hbm_util=5
 *          temperature=45 power=1028 share=1
 *   device card=0 device=1 type=mcu
 *   process logic=0 pid=4242 bytes=1073741824
 *   fail call=dcmi_get_device_health code=-8005
 *
 * "die" holds the five words of the VDIE ID in hex, separated by '-'. hbm=0 makes
 * dcmi_get_device_hbm_info answer DCMI_ERR_CODE_NOT_SUPPORT, as on chips without HBM. A "fail" line
 * makes every call of that function return the code. power is in tenths of a watt, as DCMI
 * reports it. share is the device-share mode (dcmi_get_device_share_enable), 0 when not given.
 */
#define _GNU_SOURCE
#include "dcmi_interface_api.h"
#include <dlfcn.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64
#define MAX_PROCESSES 64
#define MAX_FAILURES 16
#define MAX_CARDS 64

struct fake_device {
    int card, device, logic;
    enum dcmi_unit_type type;
    char name[MAX_CHIP_NAME_LEN];
    unsigned int die[DIE_ID_COUNT];
    unsigned int aicore;
    unsigned long long memory_mb, memory_used_mb;
    int hbm;
    unsigned int health, aicore_util, hbm_util;
    int temperature, power;
    int share;
};

struct fake_process {
    int logic, pid;
    unsigned long bytes;
};

struct fake_failure {
    char call[64];
    int code;
};

struct fake_config {
    struct fake_device devices[MAX_DEVICES];
    int device_count;
    struct fake_process processes[MAX_PROCESSES];
    int process_count;
    struct fake_failure failures[MAX_FAILURES];
    int failure_count;
};

static int initialised;

static const char *field(const char *line, const char *key) {
    size_t len = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += len) {
        if ((p == line || p[-1] == ' ' || p[-1] == '\t') && p[len] == '=') {
            return p + len + 1;
        }
    }
    return NULL;
}

static unsigned long long number(const char *line, const char *key, unsigned long long fallback) {
    const char *value = field(line, key);
    return value == NULL ? fallback : strtoull(value, NULL, 0);
}

static void word(const char *line, const char *key, char *out, size_t size) {
    const char *value = field(line, key);
    size_t n = 0;
    if (value != NULL) {
        while (value[n] != '\0' && value[n] != ' ' && value[n] != '\t' && value[n] != '\n' &&
               n + 1 < size) {
            n++;
        }
        memcpy(out, value, n);
    }
    out[n] = '\0';
}

static void parse_device(const char *line, struct fake_device *d) {
    char text[64];
    memset(d, 0, sizeof(*d));
    d->card = (int)number(line, "card", 0);
    d->device = (int)number(line, "device", 0);
    d->logic = (int)number(line, "logic", 0);
    word(line, "type", text, sizeof(text));
    d->type = strcmp(text, "mcu") == 0 ? MCU_TYPE : strcmp(text, "cpu") == 0 ? CPU_TYPE : NPU_TYPE;
    word(line, "name", d->name, sizeof(d->name));
    word(line, "die", text, sizeof(text));
    char *cursor = text;
    for (int i = 0; i < DIE_ID_COUNT && *cursor != '\0'; i++) {
        d->die[i] = (unsigned int)strtoul(cursor, &cursor, 16);
        if (*cursor == '-') {
            cursor++;
        }
    }
    d->aicore = (unsigned int)number(line, "aicore", 0);
    d->memory_mb = number(line, "memory_mb", 0);
    d->memory_used_mb = number(line, "memory_used_mb", 0);
    d->hbm = (int)number(line, "hbm", 1);
    d->health = (unsigned int)number(line, "health", 0);
    d->share = (int)number(line, "share", 0);
    d->aicore_util = (unsigned int)number(line, "aicore_util", 0);
    d->hbm_util = (unsigned int)number(line, "hbm_util", 0);
    d->temperature = (int)number(line, "temperature", 40);
    d->power = (int)number(line, "power", 800);
}

/*
 * The config file: VNPU_FAKE_DCMI_CONFIG, or fake-dcmi.conf beside this library, which is how a
 * device plugin in a real container finds it (the chart passes it no such variable; the node's
 * driver directory, this library's, is mounted into its container).
 */
static const char *config_path(char *buffer, size_t size) {
    const char *path = getenv("VNPU_FAKE_DCMI_CONFIG");
    if (path != NULL) {
        return path;
    }
    Dl_info self;
    if (dladdr((void *)config_path, &self) == 0 || self.dli_fname == NULL) {
        return NULL;
    }
    const char *slash = strrchr(self.dli_fname, '/');
    int length = slash == NULL ? 1 : (int)(slash - self.dli_fname);
    const char *directory = slash == NULL ? "." : self.dli_fname;
    if (snprintf(buffer, size, "%.*s/fake-dcmi.conf", length, directory) >= (int)size) {
        return NULL;
    }
    return buffer;
}

static int load(struct fake_config *config) {
    char beside[512];
    const char *path = config_path(beside, sizeof(beside));
    if (path == NULL) {
        fprintf(stderr, "fake libdcmi: VNPU_FAKE_DCMI_CONFIG is not set\n");
        return DCMI_ERR_CODE_INNER_ERR;
    }
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        fprintf(stderr, "fake libdcmi: cannot read %s\n", path);
        return DCMI_ERR_CODE_INNER_ERR;
    }
    memset(config, 0, sizeof(*config));
    char line[512];
    while (fgets(line, sizeof(line), file) != NULL) {
        if (strncmp(line, "device ", 7) == 0 && config->device_count < MAX_DEVICES) {
            parse_device(line, &config->devices[config->device_count++]);
        } else if (strncmp(line, "process ", 8) == 0 && config->process_count < MAX_PROCESSES) {
            struct fake_process *p = &config->processes[config->process_count++];
            p->logic = (int)number(line, "logic", 0);
            p->pid = (int)number(line, "pid", 0);
            p->bytes = (unsigned long)number(line, "bytes", 0);
        } else if (strncmp(line, "fail ", 5) == 0 && config->failure_count < MAX_FAILURES) {
            struct fake_failure *f = &config->failures[config->failure_count++];
            word(line, "call", f->call, sizeof(f->call));
            f->code = (int)(long long)number(line, "code", 0);
        }
    }
    fclose(file);
    return DCMI_OK;
}

/* Loads the config and applies scripted failures; returns DCMI_OK when the call may proceed. */
static int begin(const char *call, struct fake_config *config) {
    if (!initialised) {
        return DCMI_ERR_CODE_NOT_REDAY;
    }
    int rc = load(config);
    if (rc != DCMI_OK) {
        return rc;
    }
    for (int i = 0; i < config->failure_count; i++) {
        if (strcmp(config->failures[i].call, call) == 0) {
            return config->failures[i].code;
        }
    }
    return DCMI_OK;
}

static struct fake_device *find(struct fake_config *config, int card, int device) {
    for (int i = 0; i < config->device_count; i++) {
        if (config->devices[i].card == card && config->devices[i].device == device) {
            return &config->devices[i];
        }
    }
    return NULL;
}

/* Loads the config, applies failures and finds the device; *out is set when DCMI_OK. */
static int lookup(const char *call, struct fake_config *config, int card, int device,
                  struct fake_device **out) {
    int rc = begin(call, config);
    if (rc != DCMI_OK) {
        return rc;
    }
    *out = find(config, card, device);
    return *out == NULL ? DCMI_ERR_CODE_DEVICE_NOT_EXIST : DCMI_OK;
}

int dcmi_init(void) {
    struct fake_config config;
    int rc = load(&config);
    initialised = rc == DCMI_OK;
    return rc;
}

int dcmi_get_card_list(int *card_num, int *card_list, int list_len) {
    struct fake_config config;
    int rc = begin("dcmi_get_card_list", &config);
    if (rc != DCMI_OK) {
        return rc;
    }
    if (card_num == NULL || card_list == NULL) {
        return DCMI_ERR_CODE_INVALID_PARAMETER;
    }
    int count = 0;
    for (int i = 0; i < config.device_count; i++) {
        int card = config.devices[i].card;
        int seen = 0;
        for (int j = 0; j < count; j++) {
            seen |= card_list[j] == card;
        }
        if (!seen) {
            if (count == list_len) {
                return DCMI_ERR_CODE_INVALID_PARAMETER;
            }
            card_list[count++] = card;
        }
    }
    *card_num = count;
    return DCMI_OK;
}

int dcmi_get_device_num_in_card(int card_id, int *device_num) {
    struct fake_config config;
    int rc = begin("dcmi_get_device_num_in_card", &config);
    if (rc != DCMI_OK) {
        return rc;
    }
    int count = 0;
    for (int i = 0; i < config.device_count; i++) {
        count += config.devices[i].card == card_id;
    }
    if (count == 0) {
        return DCMI_ERR_CODE_INVALID_DEVICE_ID;
    }
    *device_num = count;
    return DCMI_OK;
}

int dcmi_get_device_type(int card_id, int device_id, enum dcmi_unit_type *device_type) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_type", &config, card_id, device_id, &d);
    if (rc == DCMI_OK) {
        *device_type = d->type;
    }
    return rc;
}

int dcmi_get_device_logic_id(int *device_logic_id, int card_id, int device_id) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_logic_id", &config, card_id, device_id, &d);
    if (rc == DCMI_OK) {
        *device_logic_id = d->logic;
    }
    return rc;
}

int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_chip_info", &config, card_id, device_id, &d);
    if (rc == DCMI_OK) {
        memset(chip_info, 0, sizeof(*chip_info));
        memcpy(chip_info->chip_type, "Ascend", 6);
        memcpy(chip_info->chip_name, d->name, strlen(d->name));
        memcpy(chip_info->chip_ver, "V1", 2);
        chip_info->aicore_cnt = d->aicore;
    }
    return rc;
}

int dcmi_get_device_health(int card_id, int device_id, unsigned int *health) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_health", &config, card_id, device_id, &d);
    if (rc == DCMI_OK) {
        *health = d->health;
    }
    return rc;
}

int dcmi_get_device_share_enable(int card_id, int device_id, int *enable_flag) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_share_enable", &config, card_id, device_id, &d);
    if (rc == DCMI_OK) {
        *enable_flag = d->share;
    }
    return rc;
}

int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_hbm_info", &config, card_id, device_id, &d);
    if (rc != DCMI_OK) {
        return rc;
    }
    if (!d->hbm) {
        return DCMI_ERR_CODE_NOT_SUPPORT;
    }
    memset(hbm_info, 0, sizeof(*hbm_info));
    hbm_info->memory_size = d->memory_mb;
    hbm_info->memory_usage = d->memory_used_mb;
    hbm_info->freq = 1600;
    hbm_info->temp = 40;
    return DCMI_OK;
}

int dcmi_get_device_memory_info_v3(int card_id, int device_id,
                                   struct dcmi_get_memory_info_stru *memory_info) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_memory_info_v3", &config, card_id, device_id, &d);
    if (rc == DCMI_OK) {
        memset(memory_info, 0, sizeof(*memory_info));
        memory_info->memory_size = d->memory_mb;
        memory_info->memory_available = d->memory_mb - d->memory_used_mb;
        memory_info->utiliza =
            d->memory_mb == 0 ? 0 : (unsigned int)(d->memory_used_mb * 100 / d->memory_mb);
    }
    return rc;
}

int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type,
                                     unsigned int *utilization_rate) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_utilization_rate", &config, card_id, device_id, &d);
    if (rc != DCMI_OK) {
        return rc;
    }
    switch (input_type) {
    case 2: /* AI Core */
        *utilization_rate = d->aicore_util;
        return DCMI_OK;
    case 6: /* on-chip memory (HBM) */
        *utilization_rate = d->hbm_util;
        return DCMI_OK;
    default:
        return DCMI_ERR_CODE_NOT_SUPPORT;
    }
}

int dcmi_get_device_temperature(int card_id, int device_id, int *temperature) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_temperature", &config, card_id, device_id, &d);
    if (rc == DCMI_OK) {
        *temperature = d->temperature;
    }
    return rc;
}

int dcmi_get_device_power_info(int card_id, int device_id, int *power) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_power_info", &config, card_id, device_id, &d);
    if (rc == DCMI_OK) {
        *power = d->power;
    }
    return rc;
}

int dcmi_get_device_die_v2(int card_id, int device_id, enum dcmi_die_type input_type,
                           struct dcmi_die_id *die_id) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_die_v2", &config, card_id, device_id, &d);
    if (rc != DCMI_OK) {
        return rc;
    }
    if (input_type != VDIE) {
        return DCMI_ERR_CODE_NOT_SUPPORT;
    }
    memcpy(die_id->soc_die, d->die, sizeof(d->die));
    return DCMI_OK;
}

int dcmi_get_device_resource_info(int card_id, int device_id, struct dcmi_proc_mem_info *proc_info,
                                  int *proc_num) {
    struct fake_config config;
    struct fake_device *d;
    int rc = lookup("dcmi_get_device_resource_info", &config, card_id, device_id, &d);
    if (rc != DCMI_OK) {
        return rc;
    }
    int count = 0;
    for (int i = 0; i < config.process_count && count < 32; i++) {
        if (config.processes[i].logic == d->logic) {
            proc_info[count].proc_id = config.processes[i].pid;
            proc_info[count].proc_mem_usage = config.processes[i].bytes;
            count++;
        }
    }
    *proc_num = count;
    return DCMI_OK;
}
