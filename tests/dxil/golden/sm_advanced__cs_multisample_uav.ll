target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResBind = type { i32, i32, i32, i8 }
%dx.types.ResourceProperties = type { i32, i32 }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%"class.RWTexture2DMS<float, 4>" = type { float, %"class.RWTexture2DMS<float, 4>::sample_type" }
%"class.RWTexture2DMS<float, 4>::sample_type" = type { i32 }
%"class.RWTexture2DMSArray<float, 4>" = type { float, %"class.RWTexture2DMSArray<float, 4>::sample_type" }
%"class.RWTexture2DMSArray<float, 4>::sample_type" = type { i32 }
%"class.RWStructuredBuffer<vector<float, 4> >" = type { <4 x float> }

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 2, i32 2, i32 0, i8 1 }, i32 2, i1 false)
  %2 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 1, i32 1, i32 0, i8 1 }, i32 1, i1 false)
  %3 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 0, i32 0, i32 0, i8 1 }, i32 0, i1 false)
  %4 = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %5 = call i32 @dx.op.threadId.i32(i32 93, i32 1)
  %6 = call i32 @dx.op.threadId.i32(i32 93, i32 2)
  %7 = alloca [4 x float], align 4
  %8 = xor i32 %4, 1
  %9 = xor i32 %5, 2
  %10 = xor i32 %6, 3
  %11 = icmp eq i32 %6, 3
  %12 = shl i32 %10, 6
  %13 = shl i32 %9, 4
  %14 = shl i32 %8, 2
  %15 = add i32 %13, %14
  %16 = add i32 %15, %12
  %17 = uitofp i32 %16 to float
  %18 = or i32 %16, 1
  %19 = uitofp i32 %18 to float
  %20 = or i32 %16, 2
  %21 = uitofp i32 %20 to float
  %22 = or i32 %16, 3
  %23 = uitofp i32 %22 to float
  br i1 %11, label %24, label %29

24:                                               ; preds = %0
  %25 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 4099, i32 262409 })
  call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %25, i32 %8, i32 %9, i32 undef, float %17, float %17, float %17, float %17, i8 15, i32 0)
  %26 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 4099, i32 262409 })
  call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %26, i32 %8, i32 %9, i32 undef, float %19, float %19, float %19, float %19, i8 15, i32 1)
  %27 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 4099, i32 262409 })
  call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %27, i32 %8, i32 %9, i32 undef, float %21, float %21, float %21, float %21, i8 15, i32 2)
  %28 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 4099, i32 262409 })
  call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %28, i32 %8, i32 %9, i32 undef, float %23, float %23, float %23, float %23, i8 15, i32 3)
  br label %34

29:                                               ; preds = %0
  %30 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4104, i32 262409 })
  call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %30, i32 %8, i32 %9, i32 %10, float %17, float %17, float %17, float %17, i8 15, i32 0)
  %31 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4104, i32 262409 })
  call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %31, i32 %8, i32 %9, i32 %10, float %19, float %19, float %19, float %19, i8 15, i32 1)
  %32 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4104, i32 262409 })
  call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %32, i32 %8, i32 %9, i32 %10, float %21, float %21, float %21, float %21, i8 15, i32 2)
  %33 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4104, i32 262409 })
  call void @dx.op.textureStoreSample.f32(i32 225, %dx.types.Handle %33, i32 %8, i32 %9, i32 %10, float %23, float %23, float %23, float %23, i8 15, i32 3)
  br label %34

34:                                               ; preds = %29, %24
  call void @dx.op.barrier(i32 80, i32 3)
  %35 = bitcast [4 x float]* %7 to i8*
  call void @llvm.lifetime.start.p0i8(i64 16, i8* %35) #1
  %36 = icmp eq i32 %6, 0
  %37 = getelementptr [4 x float], [4 x float]* %7, i32 0, i32 0
  br i1 %36, label %38, label %51

38:                                               ; preds = %34
  %39 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 4099, i32 262409 })
  %40 = call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %39, i32 0, i32 %4, i32 %5, i32 undef, i32 undef, i32 undef, i32 undef)
  %41 = extractvalue %dx.types.ResRet.f32 %40, 0
  store float %41, float* %37, align 4, !tbaa !13
  %42 = call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %39, i32 1, i32 %4, i32 %5, i32 undef, i32 undef, i32 undef, i32 undef)
  %43 = extractvalue %dx.types.ResRet.f32 %42, 0
  %44 = getelementptr [4 x float], [4 x float]* %7, i32 0, i32 1
  store float %43, float* %44, align 4, !tbaa !13
  %45 = call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %39, i32 2, i32 %4, i32 %5, i32 undef, i32 undef, i32 undef, i32 undef)
  %46 = extractvalue %dx.types.ResRet.f32 %45, 0
  %47 = getelementptr [4 x float], [4 x float]* %7, i32 0, i32 2
  store float %46, float* %47, align 4, !tbaa !13
  %48 = call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %39, i32 3, i32 %4, i32 %5, i32 undef, i32 undef, i32 undef, i32 undef)
  %49 = extractvalue %dx.types.ResRet.f32 %48, 0
  %50 = getelementptr [4 x float], [4 x float]* %7, i32 0, i32 3
  store float %49, float* %50, align 4, !tbaa !13
  br label %71

51:                                               ; preds = %34
  %52 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4104, i32 262409 })
  %53 = call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %52, i32 0, i32 %4, i32 %5, i32 %6, i32 undef, i32 undef, i32 undef)
  %54 = extractvalue %dx.types.ResRet.f32 %53, 0
  store float %54, float* %37, align 4, !tbaa !13
  br label %55

55:                                               ; preds = %55, %51
  %56 = phi i32 [ 1, %51 ], [ %61, %55 ]
  %57 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4104, i32 262409 })
  %58 = call %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32 66, %dx.types.Handle %57, i32 %56, i32 %4, i32 %5, i32 %6, i32 undef, i32 undef, i32 undef)
  %59 = extractvalue %dx.types.ResRet.f32 %58, 0
  %60 = getelementptr [4 x float], [4 x float]* %7, i32 0, i32 %56
  store float %59, float* %60, align 4, !tbaa !13
  %61 = add nuw nsw i32 %56, 1
  %62 = icmp eq i32 %61, 4
  br i1 %62, label %63, label %55, !llvm.loop !17

63:                                               ; preds = %55
  %64 = load float, float* %37, align 4
  %65 = getelementptr inbounds [4 x float], [4 x float]* %7, i32 0, i32 1
  %66 = load float, float* %65, align 4
  %67 = getelementptr inbounds [4 x float], [4 x float]* %7, i32 0, i32 2
  %68 = load float, float* %67, align 4
  %69 = getelementptr inbounds [4 x float], [4 x float]* %7, i32 0, i32 3
  %70 = load float, float* %69, align 4
  br label %71

71:                                               ; preds = %63, %38
  %72 = phi float [ %70, %63 ], [ %49, %38 ]
  %73 = phi float [ %68, %63 ], [ %46, %38 ]
  %74 = phi float [ %66, %63 ], [ %43, %38 ]
  %75 = phi float [ %64, %63 ], [ %41, %38 ]
  %76 = shl i32 %6, 4
  %77 = shl i32 %5, 2
  %78 = add i32 %77, %4
  %79 = add i32 %78, %76
  %80 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 16 })
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %80, i32 %79, i32 0, float %75, float %74, float %73, float %72, i8 15, i32 4)
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %35) #1
  ret void
}

; Function Attrs: nounwind readnone
declare i32 @dx.op.threadId.i32(i32, i32) #0

; Function Attrs: nounwind
declare void @dx.op.textureStoreSample.f32(i32, %dx.types.Handle, i32, i32, i32, float, float, float, float, i8, i32) #1

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.textureLoad.f32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i32) #2

; Function Attrs: noduplicate nounwind
declare void @dx.op.barrier(i32, i32) #3

; Function Attrs: nounwind
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32) #1

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties) #0

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.createHandleFromBinding(i32, %dx.types.ResBind, i32, i1) #0

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #4

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #4

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }
attributes #2 = { nounwind readonly }
attributes #3 = { noduplicate nounwind }
attributes #4 = { argmemonly nofree nosync nounwind willreturn }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!10}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 7}
!2 = !{!"cs", i32 6, i32 7}
!3 = !{null, !4, null, null}
!4 = !{!5, !7, !8}
!5 = !{i32 0, %"class.RWTexture2DMS<float, 4>"* undef, !"", i32 0, i32 0, i32 1, i32 3, i1 false, i1 false, i1 false, !6}
!6 = !{i32 0, i32 9}
!7 = !{i32 1, %"class.RWTexture2DMSArray<float, 4>"* undef, !"", i32 0, i32 1, i32 1, i32 8, i1 false, i1 false, i1 false, !6}
!8 = !{i32 2, %"class.RWStructuredBuffer<vector<float, 4> >"* undef, !"", i32 0, i32 2, i32 1, i32 12, i1 false, i1 false, i1 false, !9}
!9 = !{i32 1, i32 16}
!10 = !{void ()* @main, !"main", null, !3, !11}
!11 = !{i32 0, i64 60129542160, i32 4, !12}
!12 = !{i32 4, i32 4, i32 4}
!13 = !{!14, !14, i64 0}
!14 = !{!"float", !15, i64 0}
!15 = !{!"omnipotent char", !16, i64 0}
!16 = !{!"Simple C/C++ TBAA"}
!17 = distinct !{!17, !18}
!18 = !{!"llvm.loop.unroll.disable"}
