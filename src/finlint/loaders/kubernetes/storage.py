"""``StorageClass`` / ``PersistentVolume`` / ``PersistentVolumeClaim`` -> :class:`Volume`.

Each says what it can about the storage behind it: the provisioner or CSI driver, the file
system (an EFS/FSx id from ``fileSystemId``, a ``volumeHandle`` or an EFS DNS name as ``nfs``
server), the size and, for a claim, its class and bound volume. ``is_efs`` is left unknown when
the driver does not tell; the linking pass follows claims to classes and volumes.
:func:`claim_volume` also builds the claims workloads create (``kubernetes_workloads``).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from finlint.ir import ConfigMap, Maybe, Record, Volume
from finlint.loaders.common.yamlload import LineDict
from finlint.loaders.kubernetes.object import (
    Doc,
    Node,
    child,
    gib,
    mapping,
    placeholder,
    plain,
    templated,
    text,
)

EFS_DRIVER = "efs.csi.aws.com"
#: Provisioners / drivers known not to be EFS (anything else is left for the linking pass).
NON_EFS_DRIVERS = frozenset(
    {
        "ebs.csi.aws.com",
        "kubernetes.io/aws-ebs",
        "fsx.csi.aws.com",
        "fsx.openzfs.csi.aws.com",
        "s3.csi.aws.com",
        "kubernetes.io/no-provisioner",
        "kubernetes.io/host-path",
        "kubernetes.io/local",
        "rancher.io/local-path",
        "secrets-store.csi.k8s.io",
    }
)
FILE_SYSTEM_DRIVERS = frozenset({EFS_DRIVER, "fsx.csi.aws.com", "fsx.openzfs.csi.aws.com"})

_EFS_DNS = re.compile(r"^(fs-[0-9a-f]+)\.efs\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?\.?$")


def is_efs(driver: Maybe[str]) -> Maybe[bool]:
    if not isinstance(driver, str):
        return driver  # None (absent) or Unknown
    if driver == EFS_DRIVER:
        return True
    return False if driver in NON_EFS_DRIVERS else None


def efs_id_from_dns(server: Any) -> str | None:
    match = _EFS_DNS.match(server.strip().lower()) if isinstance(server, str) else None
    return match.group(1) if match else None


def load_storage_class(d: Doc) -> list[Record]:
    provisioner = text(d.doc.get("provisioner"), "provisioner")
    parameters = mapping(d.doc, "parameters")
    lines: dict[str, int] = {}
    if "provisioner" in d.doc:
        lines["provisioner"] = lines["is_efs"] = d.line_at(d.doc, "provisioner")
    fs_ref: Maybe[str] = None
    root: Maybe[str] = None
    if parameters is not None:
        if "fileSystemId" in parameters:
            fs_ref = text(parameters["fileSystemId"], "parameters.fileSystemId")
            lines["file_system_ref"] = d.line_at(parameters, "fileSystemId")
        if "basePath" in parameters:
            root = text(parameters["basePath"], "parameters.basePath")
            lines["root_path"] = d.line_at(parameters, "basePath")
    annotations = mapping(d.metadata, "annotations") or {}
    extra: dict[str, Any] = {"parameters": plain(parameters) if parameters is not None else {}}
    if str(annotations.get("storageclass.kubernetes.io/is-default-class", "")).lower() == "true":
        extra["default_class"] = True
    deployment, repository = _fsx_lustre_class(d, provisioner, parameters, lines)
    volume = Volume(
        **d.common(namespaced=False, lines=lines),
        extra=extra,
        volume_kind="storage-class",
        provisioner=provisioner,
        file_system_ref=fs_ref,
        root_path=root,
        is_efs=is_efs(provisioner),
        deployment_type=deployment,
        data_repository=repository,
    )
    return [volume]


#: FSx for Lustre CSI StorageClass parameters that link the file system it creates to S3.
_FSX_S3_PARAMETERS = ("s3ImportPath", "s3ExportPath", "autoImportPolicy")


def _fsx_lustre_class(
    d: Doc, provisioner: Maybe[str], parameters: Node | None, lines: dict[str, int]
) -> tuple[Maybe[str], Maybe[bool]]:
    """(deploymentType, linked to S3?) of a dynamically provisioning FSx for Lustre class."""
    if provisioner != "fsx.csi.aws.com" or parameters is None:
        return None, None
    deployment: Maybe[str] = None
    if "deploymentType" in parameters:
        deployment = text(parameters["deploymentType"], "parameters.deploymentType")
        lines["deployment_type"] = d.line_at(parameters, "deploymentType")
    if "fileSystemId" in parameters:
        return deployment, None  # an existing file system: its links are not in this object
    present = [k for k in _FSX_S3_PARAMETERS if k in parameters]
    if not present:
        return deployment, False
    values = [text(parameters[k], f"parameters.{k}") for k in present]
    lines["data_repository"] = d.line_at(parameters, present[0])
    unknown = next((v for v in values if not isinstance(v, str) and v is not None), None)
    return deployment, unknown if unknown is not None else True


class _Source(NamedTuple):
    """What a PersistentVolume's volume source says about the storage behind it."""

    driver: Maybe[str] = None
    file_system_ref: Maybe[str] = None
    root_path: Maybe[str] = None
    is_efs: Maybe[bool] = None
    extra: dict[str, Any] = {}


def _csi_source(d: Doc, csi: Node, lines: dict[str, int]) -> _Source:
    driver = text(csi.get("driver"), "csi.driver")
    if "driver" in csi:
        lines["provisioner"] = lines["is_efs"] = d.line_at(csi, "driver")
    handle = text(csi.get("volumeHandle"), "csi.volumeHandle")
    if not isinstance(handle, str):
        fs_ref = handle if driver in FILE_SYSTEM_DRIVERS else None
        return _Source(driver, fs_ref, None, is_efs(driver))
    fs_id, _, rest = handle.partition(":")
    if driver not in FILE_SYSTEM_DRIVERS and not fs_id.startswith("fs-"):
        return _Source(driver, None, None, is_efs(driver), {"volume_handle": handle})
    lines["file_system_ref"] = d.line_at(csi, "volumeHandle")
    if rest.startswith(":"):  # fs-123::fsap-456 (through an access point)
        return _Source(driver, fs_id, None, is_efs(driver), {"access_point": rest[1:]})
    return _Source(driver, fs_id, rest or None, is_efs(driver))  # fs-123 or fs-123:/sub/dir


def _nfs_source(d: Doc, nfs: Node, lines: dict[str, int]) -> _Source:
    """An in-tree ``nfs`` volume is EFS when its server is an EFS DNS name."""
    server = nfs.get("server")
    path = text(nfs.get("path"), "nfs.path")
    if templated(server):
        unknown = placeholder("nfs.server", server)
        return _Source("kubernetes.io/nfs", unknown, path, unknown)
    efs_id = efs_id_from_dns(server)
    if efs_id is None:
        return _Source("kubernetes.io/nfs", None, path, None, {"nfs_server": server})
    lines["file_system_ref"] = lines["is_efs"] = d.line_at(nfs, "server")
    return _Source("kubernetes.io/nfs", efs_id, path, True, {"nfs_server": server})


def _pv_source(d: Doc, spec: Node, lines: dict[str, int]) -> _Source:
    csi = mapping(spec, "csi")
    if csi is not None:
        return _csi_source(d, csi, lines)
    nfs = mapping(spec, "nfs")
    if nfs is not None:
        lines["provisioner"] = d.line_at(spec, "nfs")
        return _nfs_source(d, nfs, lines)
    for key, driver in (
        ("awsElasticBlockStore", "kubernetes.io/aws-ebs"),
        ("hostPath", "kubernetes.io/host-path"),
        ("local", "kubernetes.io/local"),
    ):
        if key in spec:
            lines["provisioner"] = lines["is_efs"] = d.line_at(spec, key)
            return _Source(driver, is_efs=False)
    return _Source()


def load_persistent_volume(d: Doc) -> list[Record]:
    spec = d.spec or LineDict()
    lines: dict[str, int] = {}
    source = _pv_source(d, spec, lines)
    extra = dict(source.extra)
    if "storageClassName" in spec:
        lines["storage_class"] = d.line_at(spec, "storageClassName")
    capacity = mapping(spec, "capacity")
    if capacity is not None and "storage" in capacity:
        lines["capacity_gb"] = d.line_at(capacity, "storage")
    claim_ref = mapping(spec, "claimRef") or LineDict()
    if "name" in claim_ref:
        lines["claim_ref"] = d.line_at(claim_ref, "name")
    volume = Volume(
        **d.common(namespaced=False, lines=lines),
        extra=extra,
        volume_kind="pv",
        storage_class=text(spec.get("storageClassName"), "storageClassName"),
        provisioner=source.driver,
        capacity_gb=gib(child(capacity, "storage"), "capacity.storage"),
        file_system_ref=source.file_system_ref,
        root_path=source.root_path,
        is_efs=source.is_efs,
        claim_ref=text(claim_ref.get("name"), "claimRef.name"),
        claim_ref_namespace=text(claim_ref.get("namespace"), "claimRef.namespace"),
    )
    return [volume]


def claim_volume(d: Doc, claim_spec: Any, annotations: Any, **record: Any) -> Volume:
    """A PVC (standalone, StatefulSet template or ephemeral template): class, bound PV, size."""
    spec = claim_spec if isinstance(claim_spec, dict) else LineDict()
    lines: dict[str, int] = dict(record.pop("attr_lines", {}))
    storage_class = text(spec.get("storageClassName"), "storageClassName")
    if "storageClassName" in spec:
        lines["storage_class"] = d.line_at(spec, "storageClassName")
    elif isinstance(annotations, dict) and "volume.beta.kubernetes.io/storage-class" in annotations:
        storage_class = text(
            annotations["volume.beta.kubernetes.io/storage-class"], "storage-class annotation"
        )
        lines["storage_class"] = d.line_at(annotations, "volume.beta.kubernetes.io/storage-class")
    if "volumeName" in spec:
        lines["volume_name"] = d.line_at(spec, "volumeName")
    requests = mapping(mapping(spec, "resources"), "requests")
    if requests is not None and "storage" in requests:
        lines["capacity_gb"] = d.line_at(requests, "storage")
    return Volume(
        **record,
        attr_lines=lines,
        volume_kind="pvc",
        namespace=d.namespace,
        storage_class=storage_class,
        volume_name=text(spec.get("volumeName"), "volumeName"),
        capacity_gb=gib(child(requests, "storage"), "resources.requests.storage"),
    )


def load_config_map(d: Doc) -> list[Record]:
    """A ConfigMap's literal string data (templated values stay out: they cannot be expanded);
    a script (a multi-line value) is kept with its shell ``$VARS`` unless a template engine's
    ``{{ }}`` is in it: ``linking.env`` reads the scripts containers run from it."""
    data = mapping(d.doc, "data") or {}
    values = {
        str(k): str(v)
        for k, v in data.items()
        if isinstance(v, (str, int, float))
        and not isinstance(v, bool)
        and (not templated(v) or (isinstance(v, str) and "\n" in v.strip() and "{{" not in v))
    }
    lines = {f"data.{k}": d.line_at(data, k) for k in values}
    return [ConfigMap(**d.common(lines=lines), namespace=d.namespace, data=values)]


def load_claim(d: Doc) -> list[Record]:
    common = d.common()
    return [claim_volume(d, d.spec, mapping(d.metadata, "annotations"), **common)]
