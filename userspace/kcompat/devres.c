// SPDX-License-Identifier: MIT
/*
 * kcompat devres: resources that live as long as their device, newest
 * released first (<linux/device.h>).
 */
#include <stdlib.h>
#include <string.h>

#include <linux/device.h>

/**
 * struct kcompat_devres - one managed resource.
 * @next: the device's next older resource.
 * @release: called before it is freed.
 * @data: the resource, 16-byte aligned like kmalloc()'s.
 */
struct kcompat_devres {
	struct kcompat_devres *next;
	dr_release_t release;
	_Alignas(16) unsigned char data[];
};

static struct kcompat_devres *to_devres(void *res)
{
	return (struct kcompat_devres *)((char *)res - offsetof(struct kcompat_devres, data));
}

void *devres_alloc(dr_release_t release, size_t size, gfp_t gfp)
{
	struct kcompat_devres *dr = calloc(1, sizeof(*dr) + size);

	(void)gfp;
	if (!dr)
		return NULL;
	dr->release = release;
	return dr->data;
}

void devres_free(void *res)
{
	if (res)
		free(to_devres(res));
}

void devres_add(struct device *dev, void *res)
{
	struct kcompat_devres *dr = to_devres(res);

	dr->next = dev->devres;
	dev->devres = dr;
}

int devres_destroy(struct device *dev, dr_release_t release, dr_match_t match,
		   void *match_data)
{
	for (struct kcompat_devres **p = &dev->devres; *p; p = &(*p)->next) {
		struct kcompat_devres *dr = *p;

		if (dr->release != release || (match && !match(dev, dr->data, match_data)))
			continue;
		*p = dr->next;
		free(dr);
		return 0;
	}
	return -ENOENT;
}

void kcompat_devres_release_all(struct device *dev)
{
	while (dev->devres) {
		struct kcompat_devres *dr = dev->devres;

		dev->devres = dr->next;
		dr->release(dev, dr->data);
		free(dr);
	}
}
