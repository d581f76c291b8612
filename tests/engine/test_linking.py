"""The linking pass across files: claims -> StorageClass / PV -> EFS, PVs that share a name."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

SC_EFS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: efs-sc
provisioner: efs.csi.aws.com
"""
PV = """apiVersion: v1
kind: PersistentVolume
metadata:
  name: {name}
spec:
  capacity:
    storage: 100Gi
  accessModes: [ReadWriteMany]
  storageClassName: {sc}
"""


def test_two_pvs_with_one_name_are_both_linked_and_keep_their_own_files(tmp_path: Path) -> None:
    result = scan_files(
        tmp_path,
        {
            "a/sc.yaml": SC_EFS,
            "a/pv.yaml": PV.format(name="ckpt-pv", sc="efs-sc"),
            "b/pv.yaml": PV.format(name="ckpt-pv", sc="efs-sc"),
        },
        select=("FIN401",),
    )
    assert sorted((Path(f.file).parent.name, f.line) for f in result.findings) == [("a", 4), ("b", 4)]  # name
    pvs = [r for r in result.records if getattr(r, "volume_kind", None) == "pv"]
    assert sorted(Path(r.location.file).parent.name for r in pvs) == ["a", "b"]
    assert all(r.is_efs is True for r in pvs)  # type: ignore[attr-defined]


def test_pv_of_another_class_is_not_efs(tmp_path: Path) -> None:
    result = scan_files(
        tmp_path,
        {"sc.yaml": SC_EFS, "pv.yaml": PV.format(name="ckpt-pv", sc="gp3")},
        select=("FIN401",),
    )
    assert result.findings == []


def test_templatefile_yaml_with_dollar_braces_is_a_skipped_template(tmp_path: Path) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\ndata:\n  zones: [${azs}b, ${azs}c]\n  extra: {\n"
    result = scan_files(tmp_path, {"cm.yaml.tpl.yaml": text})
    assert result.errors == [] and len(result.notices) == 1
    assert "skipped template" in result.notices[0].message


def test_broken_yaml_with_sub_elsewhere_is_still_an_error(tmp_path: Path) -> None:
    text = "Resources:\n  B:\n    Type: AWS::S3::Bucket\n    Properties:\n"
    text += '      BucketName: !Sub "${AWS::StackName}-x"\n'
    text += "\n\n\n  Broken: [unclosed\n"
    result = scan_files(tmp_path, {"t.yaml": text})
    assert [e.line for e in result.errors] == [10]
