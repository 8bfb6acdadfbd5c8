package switcher

// Single-informer rows: the constructors of one informer outside a
// factory. A row is active only when the kcache the module resolves has
// its clientgo side with client-go's very signature (an older kcache
// lacks them); until then each use is reported as not switched, with the
// row's Pending reason.

const pendingSingleInformers = "the kcache this module resolves has no clientgo single-informer constructor of this name (an older kcache)"

var pendingCallRules = []callRule{
	{From: ref{dynamicInformerPath, "NewFilteredDynamicInformer"}, To: ref{kcacheClientgoPath, "NewFilteredDynamicInformer"}, What: "dynamic informer", Aliases: []string{"dynamicinformer"}, Pending: pendingSingleInformers},
	{From: ref{metaInformerPath, "NewFilteredMetadataInformer"}, To: ref{kcacheClientgoPath, "NewFilteredMetadataInformer"}, What: "metadata informer", Aliases: []string{"metadatainformer"}, Pending: pendingSingleInformers},
	{From: ref{clientgoCachePath, "NewSharedInformer"}, To: ref{kcacheClientgoPath, "NewSharedInformer"}, What: "informer constructor", Aliases: clientgoCacheAliases, Pending: pendingSingleInformers},
}
