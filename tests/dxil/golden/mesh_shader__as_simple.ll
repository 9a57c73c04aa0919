target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.Payload.0 = type { [4 x float] }

define void @main() {
  %1 = alloca %struct.Payload.0, align 8
  %2 = getelementptr %struct.Payload.0, %struct.Payload.0* %1, i32 0, i32 0, i32 0
  store float 0.000000e+00, float* %2, align 8
  %3 = getelementptr %struct.Payload.0, %struct.Payload.0* %1, i32 0, i32 0, i32 1
  store float 1.000000e+00, float* %3, align 4
  %4 = getelementptr %struct.Payload.0, %struct.Payload.0* %1, i32 0, i32 0, i32 2
  store float 0.000000e+00, float* %4, align 8
  %5 = getelementptr %struct.Payload.0, %struct.Payload.0* %1, i32 0, i32 0, i32 3
  store float 1.000000e+00, float* %5, align 4
  call void @dx.op.dispatchMesh.struct.Payload.0(i32 173, i32 1, i32 1, i32 1, %struct.Payload.0* nonnull %1)
  ret void
}

; Function Attrs: nounwind
declare void @dx.op.dispatchMesh.struct.Payload.0(i32, i32, i32, i32, %struct.Payload.0*) #0

attributes #0 = { nounwind }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.entryPoints = !{!4}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 5}
!2 = !{i32 1, i32 7}
!3 = !{!"as", i32 6, i32 5}
!4 = !{void ()* @main, !"main", null, null, !5}
!5 = !{i32 10, !6}
!6 = !{!7, i32 16}
!7 = !{i32 1, i32 1, i32 1}
