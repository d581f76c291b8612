"""FIN401 messages name what a person reads in the manifest, never an internal object."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: img
              resources:
                limits:
                  nvidia.com/gpu: 8
              volumeMounts:
                - name: ckpt
                  mountPath: ${CKPT_MOUNT}
          volumes:
            - name: ckpt
              persistentVolumeClaim:
                claimName: efs-checkpoints
"""


def test_templated_mount_path_is_described_not_printed_as_an_object(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"job.yaml": JOB}, ("FIN401",))
    (finding,) = result.findings
    assert "Unknown(" not in finding.message
    assert finding.message.startswith(
        "PyTorchJob/default/train: mounts checkpoint volume 'ckpt' (mounted at a path not known: "
        "mountPath is a template placeholder ('${CKPT_MOUNT}')) from claim 'efs-checkpoints'"
    )
    assert finding.line == 18


STORAGE = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: efs-sc
provisioner: efs.csi.aws.com
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: datasets
spec:
  storageClassName: efs-sc
  resources:
    requests:
      storage: 5000Gi
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: checkpoints-pv
spec:
  capacity:
    storage: 500Gi
  storageClassName: efs-sc
  csi:
    driver: efs.csi.aws.com
    volumeHandle: fs-12345678
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: checkpoints
spec:
  storageClassName: efs-sc
  volumeName: checkpoints-pv
  resources:
    requests:
      storage: 500Gi
"""

WORKLOAD = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      containers:
        - name: train
          image: img
          resources:
            limits:
              nvidia.com/gpu: 8
          volumeMounts:
            - name: data
              mountPath: /data
            - name: ckpt
              mountPath: /checkpoints
      volumes:
        - name: data
          persistentVolumeClaim:
            claimName: datasets
        - name: ckpt
          persistentVolumeClaim:
            claimName: checkpoints
"""


def test_a_pv_and_its_claim_are_one_bill(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"storage.yaml": STORAGE}, ("FIN401",))
    found = {f.resource: f for f in result.findings}
    assert sorted(found) == ["PersistentVolume/checkpoints-pv", "PersistentVolumeClaim/default/checkpoints"]
    keys = {f.cost.counted_once.resource for f in found.values() if f.cost and f.cost.counted_once}
    assert keys == {"PersistentVolumeClaim/default/checkpoints"}


def test_workload_checkpoint_is_sized_from_its_own_claim(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"storage.yaml": STORAGE, "job.yaml": WORKLOAD}, ("FIN401",))
    (job,) = [f for f in result.findings if f.resource.startswith("Job/")]
    assert job.line == 17 and job.cost is not None
    assert job.cost.assumptions["checkpoint_gb"] == 500
    assert "claim 'checkpoints' requested size" in job.cost.basis
    assert job.cost.counted_once is not None
    assert job.cost.counted_once.resource == "PersistentVolumeClaim/default/checkpoints"


def test_space_separated_flag_under_a_claim_efs_by_name(tmp_path: Path) -> None:
    """``--ckpt-path /efs/ckpt`` (two words) under the mount of claim 'efs-claim', not in the scan."""
    job = JOB.replace("mountPath: ${CKPT_MOUNT}", "mountPath: /efs").replace(
        "claimName: efs-checkpoints", "claimName: efs-claim"
    )
    command = '              command: ["torchrun", "train.py", "--ckpt-path", "/efs/ckpt"]\n'
    job = job.replace("name: ckpt", "name: shared").replace("image: img\n", "image: img\n" + command)
    result = scan_files(tmp_path, {"job.yaml": job}, ("FIN401",))
    (finding,) = result.findings
    assert finding.line == 14
    assert (
        "checkpoint path '/efs/ckpt' (command) is under the mount '/efs' of claim 'efs-claim'"
        in finding.message
    )
    assert "EFS by name only" in finding.message


STATIC_PV = """\
apiVersion: v1
kind: PersistentVolume
metadata:
  name: ckpt-pv
spec:
  capacity:
    storage: 500Gi
  storageClassName: ""
  claimRef:
    namespace: default
    name: ckpt-claim
  csi:
    driver: efs.csi.aws.com
    volumeHandle: fs-12345678
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ckpt-claim
spec:
  storageClassName: ""
  resources:
    requests:
      storage: 500Gi
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data-claim
spec:
  storageClassName: efs-sc
  resources:
    requests:
      storage: 5000Gi
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: efs-sc
provisioner: efs.csi.aws.com
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: img
              volumeMounts:
                - name: data
                  mountPath: /mnt/data
                - name: ck
                  mountPath: /mnt/ckpt
          volumes:
            - name: data
              persistentVolumeClaim:
                claimName: data-claim
            - name: ck
              persistentVolumeClaim:
                claimName: ckpt-claim
"""


def test_a_pv_reserved_by_claim_ref_links_its_claim_and_is_one_bill(tmp_path: Path) -> None:
    """Static provisioning: the PV names its claim (spec.claimRef), the claim names no class and
    no volumeName. The claim and the job mounting it are on EFS through the PV; the PV, the
    claim and the job are one bill, sized from the checkpoint claim, not the dataset's."""
    result = scan_files(tmp_path, {"storage.yaml": STATIC_PV}, ("FIN401",))
    by_resource = {f.resource: f for f in result.findings}
    assert set(by_resource) == {
        "PersistentVolume/ckpt-pv",
        "PersistentVolumeClaim/default/ckpt-claim",
        "PyTorchJob/default/train",
    }
    costs = {r: f.cost for r, f in by_resource.items()}
    assert all(c is not None for c in costs.values())
    counted = [r for r, c in costs.items() if c is not None and "counted_in" not in c.assumptions]
    assert counted == ["PersistentVolumeClaim/default/ckpt-claim"]
    claim_cost = costs["PersistentVolumeClaim/default/ckpt-claim"]
    assert claim_cost is not None and claim_cost.assumptions["checkpoint_gb"] == 500
